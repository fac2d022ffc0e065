#pragma once
// RAII ownership of PetscInitialize/PetscFinalize for the command line. PETSc reads its own
// options (-ts_type, -log_view, ...) from the command line and PETSC_OPTIONS.
#include <string>

namespace rdpdyn {

class PetscSession {
 public:
  PetscSession(int* argc, char*** argv);
  ~PetscSession();
  PetscSession(const PetscSession&) = delete;
  PetscSession& operator=(const PetscSession&) = delete;

  /// PETSc's version string, e.g. "Petsc Release Version 3.18.5, ...".
  static std::string version();
  /// Rank in PETSC_COMM_WORLD (0 without mpirun).
  int rank() const;
  int size() const;
};

}  // namespace rdpdyn

#pragma once
// Ownership of PetscInitialize/PetscFinalize for the command line, initialised only when the run
// needs it: PETSc (and with it MPI) costs a few hundred milliseconds of start-up (MPI_Init in
// singleton mode), which the characteristics engine never needs. PETSc reads its own options
// (-ts_type, -log_view, ...) from the command line and PETSC_OPTIONS once initialised.
#include <mpi.h>

#include <string>

namespace rdpdyn {

class PetscSession {
 public:
  /// Initialises PETSc at once when the process was started by an MPI launcher (every rank must
  /// join collectively; see started_by_mpi_launcher) or when `petsc_options` (PETSc options on the
  /// command line imply the user wants PETSc); otherwise only on require().
  PetscSession(int* argc, char*** argv, bool petsc_options);
  ~PetscSession();
  PetscSession(const PetscSession&) = delete;
  PetscSession& operator=(const PetscSession&) = delete;

  /// Initialises PETSc (and MPI) if not done yet: the finite-difference engine calls for it.
  void require();
  bool initialized() const { return initialized_; }
  /// PETSC_COMM_WORLD once initialised, else MPI_COMM_SELF (a constant; usable uninitialised
  /// only as a value, never in an MPI call: the engines of such a run make none).
  MPI_Comm comm() const;

  /// PETSc's version string, e.g. "Petsc Release Version 3.18.5, ...".
  static std::string version();
  /// True when an MPI launcher started this process: Open MPI's mpirun/mpiexec
  /// (OMPI_COMM_WORLD_SIZE), PMIx launchers such as Open MPI 5 and Slurm srun --mpi=pmix
  /// (PMIX_RANK), MPICH/Intel MPI Hydra and PMI-1/2 launchers (PMI_SIZE, PMI_RANK, MPI_LOCALNRANKS).
  static bool started_by_mpi_launcher();
  /// Rank in PETSC_COMM_WORLD (0 without mpirun or before initialisation).
  int rank() const;
  int size() const;

 private:
  int* argc_;
  char*** argv_;
  bool initialized_ = false;
};

/// True when `args` (what the command line parser left unparsed) hold a PETSc-style option: a
/// single '-' followed by a letter, like -ts_type or -log_view.
template <class Strings>
bool has_petsc_options(const Strings& args) {
  for (const auto& a : args) {
    const std::string s(a);
    if (s.size() >= 2 && s[0] == '-' && s[1] != '-' && ((s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z')))
      return true;
  }
  return false;
}

}  // namespace rdpdyn

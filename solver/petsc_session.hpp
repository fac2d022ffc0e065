#pragma once
// Ownership of PetscInitialize/PetscFinalize for the command line, initialised only when the run
// needs it: PETSc (and with it MPI) costs a few hundred milliseconds of start-up (MPI_Init in
// singleton mode), which the characteristics engine never needs. PETSc reads its own options
// (-ts_type, -log_view, ...) from the list given here (the command line after `--`) and from
// PETSC_OPTIONS once initialised.
#include <mpi.h>

#include <string>
#include <vector>

namespace rdpdyn {

class PetscSession {
 public:
  /// `program` is argv[0]; `petsc_options` the PETSc options of the command line (after `--`).
  /// Initialises PETSc at once when the process was started by an MPI launcher (every rank must
  /// join collectively; see started_by_mpi_launcher) or when PETSc options are given (the user
  /// wants PETSc); otherwise only on require(). PETSc's own signal handler is not installed
  /// (-no_signal_handler): the command line's handlers remove temporary outputs instead.
  PetscSession(std::string program, std::vector<std::string> petsc_options);
  ~PetscSession();
  PetscSession(const PetscSession&) = delete;
  PetscSession& operator=(const PetscSession&) = delete;

  /// Initialises PETSc (and MPI) if not done yet: the finite-difference engine calls for it.
  void require();
  bool initialized() const { return initialized_; }
  /// PETSC_COMM_WORLD once initialised, else MPI_COMM_SELF (a constant; usable uninitialised
  /// only as a value, never in an MPI call: the engines of such a run make none).
  MPI_Comm comm() const;

  /// The options given to PETSc (command line and PETSC_OPTIONS) that it never read, as
  /// "-name value" (as -options_left reports them); empty when PETSc was not initialised.
  std::vector<std::string> unused_options() const;

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
  std::vector<std::string> arguments_;  ///< program, the PETSc options, -no_signal_handler
  std::vector<char*> argv_;
  int argc_ = 0;
  char** argv_pointer_ = nullptr;
  bool initialized_ = false;
};

}  // namespace rdpdyn

#include "solver/petsc_session.hpp"

#include <petscsys.h>

#include <cstdlib>
#include <stdexcept>
#include <type_traits>

static_assert(std::is_same_v<PetscScalar, double>, "rdpdyn needs the real, double PETSc build");

namespace rdpdyn {

PetscSession::PetscSession(std::string program, std::vector<std::string> petsc_options) {
  const bool wanted = !petsc_options.empty();
  arguments_.push_back(std::move(program));
  for (auto& o : petsc_options) arguments_.push_back(std::move(o));
  arguments_.push_back("-no_signal_handler");
  if (wanted || started_by_mpi_launcher()) require();
}

PetscSession::~PetscSession() {
  if (initialized_) PetscFinalize();
}

void PetscSession::require() {
  if (initialized_) return;
  for (auto& a : arguments_) argv_.push_back(a.data());
  argv_.push_back(nullptr);
  argc_ = static_cast<int>(arguments_.size());
  argv_pointer_ = argv_.data();
  // A single process (no launcher) is an MPI singleton: Open MPI would start its daemon (orted) to
  // serve it, a quarter of a second of wall time for a run of one process that spawns nothing.
  // The user's own setting wins (overwrite = 0).
  if (!started_by_mpi_launcher()) setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  if (PetscInitialize(&argc_, &argv_pointer_, nullptr, nullptr) != 0)
    throw std::runtime_error("PetscInitialize failed");
  initialized_ = true;
}

std::vector<std::string> PetscSession::unused_options() const {
  std::vector<std::string> out;
  if (!initialized_) return out;
  PetscInt n = 0;
  char** names = nullptr;
  char** values = nullptr;
  if (PetscOptionsLeftGet(nullptr, &n, &names, &values) != 0) return out;
  for (PetscInt i = 0; i < n; ++i)
    out.push_back("-" + std::string(names[i]) + (values[i] ? " " + std::string(values[i]) : std::string()));
  PetscOptionsLeftRestore(nullptr, &n, &names, &values);
  return out;
}

MPI_Comm PetscSession::comm() const { return initialized_ ? PETSC_COMM_WORLD : MPI_COMM_SELF; }

bool PetscSession::started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

std::string PetscSession::version() {
  char buf[256];
  PetscGetVersion(buf, sizeof buf);
  return buf;
}

int PetscSession::rank() const {
  PetscMPIInt r = 0;
  if (initialized_) MPI_Comm_rank(PETSC_COMM_WORLD, &r);
  return r;
}

int PetscSession::size() const {
  PetscMPIInt s = 1;
  if (initialized_) MPI_Comm_size(PETSC_COMM_WORLD, &s);
  return s;
}

}  // namespace rdpdyn

#include "solver/petsc_session.hpp"

#include <petscsys.h>

#include <cstdlib>
#include <stdexcept>
#include <type_traits>

static_assert(std::is_same_v<PetscScalar, double>, "rdpdyn needs the real, double PETSc build");

namespace rdpdyn {

PetscSession::PetscSession(int* argc, char*** argv, bool petsc_options) : argc_(argc), argv_(argv) {
  if (petsc_options || started_by_mpi_launcher()) require();
}

PetscSession::~PetscSession() {
  if (initialized_) PetscFinalize();
}

void PetscSession::require() {
  if (initialized_) return;
  if (PetscInitialize(argc_, argv_, nullptr, nullptr) != 0) throw std::runtime_error("PetscInitialize failed");
  initialized_ = true;
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

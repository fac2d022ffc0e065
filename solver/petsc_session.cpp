#include "solver/petsc_session.hpp"

#include <petscsys.h>

#include <stdexcept>
#include <type_traits>

static_assert(std::is_same_v<PetscScalar, double>, "rdpdyn needs the real, double PETSc build");

namespace rdpdyn {

PetscSession::PetscSession(int* argc, char*** argv) {
  if (PetscInitialize(argc, argv, nullptr, nullptr) != 0)
    throw std::runtime_error("PetscInitialize failed");
}

PetscSession::~PetscSession() { PetscFinalize(); }

std::string PetscSession::version() {
  char buf[256];
  PetscGetVersion(buf, sizeof buf);
  return buf;
}

int PetscSession::rank() const {
  PetscMPIInt r = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &r);
  return r;
}

int PetscSession::size() const {
  PetscMPIInt s = 1;
  MPI_Comm_size(PETSC_COMM_WORLD, &s);
  return s;
}

}  // namespace rdpdyn

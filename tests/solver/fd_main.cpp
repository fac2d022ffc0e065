// Catch2 runner for the tests that need PETSc (the finite-difference engine).
#define CATCH_CONFIG_RUNNER
#include <petscsys.h>

#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  int one = 1;
  PetscInitialize(&one, &argv, nullptr, nullptr);  // PETSc sees argv[0] only; options via PETSC_OPTIONS
  const int rc = Catch::Session().run(argc, argv);
  PetscFinalize();
  return rc;
}

# `cpack -G DEB` in the build directory: rdpdyn_<version>_<arch>.deb with what `cmake --install`
# puts under /usr (the command, the Python module, headers, static libraries, CMake package).
# Its Depends are the Debian packages of the shared libraries the command and the Python module
# load, found by dpkg-shlibdeps on the packed files, plus the Python the module was built for and
# numpy (its arrays). Building against the package needs the -dev packages: Suggests.
set(CPACK_PACKAGE_NAME rdpdyn)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Certified Renyi-DP bounds for the last iterate of noisy gradient descent")
# One string: a CMake list would reach the control file with its ';' separators.
set(CPACK_PACKAGE_DESCRIPTION "Solves the privacy-dynamics PDI of Chourasia, Ye & Shokri (2021) over a training run \
described as data, compares it with the published analyses, converts to (epsilon, delta) and calibrates noise. \
Contains the rdpdyn command, its Python module, and the C++ library with its CMake package.")
set(CPACK_PACKAGE_CONTACT "rdpdyn maintainers <maintainers@users.noreply.a-seed-01509a45.example>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(RDPDYN_DEB_DEPENDS "")
if(RDPDYN_BUILD_PYTHON)
  # The extension is built for one Python minor version (python/CMakeLists.txt).
  math(EXPR RDPDYN_PYTHON_NEXT_MINOR "${RDPDYN_PYTHON_MINOR} + 1")
  set(RDPDYN_DEB_DEPENDS "python3 (>= 3.${RDPDYN_PYTHON_MINOR}), python3 (<< 3.${RDPDYN_PYTHON_NEXT_MINOR}), python3-numpy")
  # `rdpdyn plot` and rdpdyn.figures draw with these; rdpdyn.Sweep.to_xarray uses xarray.
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-matplotlib, python3-h5py")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-xarray, ")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${RDPDYN_DEB_DEPENDS}")
# find_package(rdpdyn) needs the headers and CMake files of the dependencies (scripts/install-deps.sh).
string(APPEND CPACK_DEBIAN_PACKAGE_SUGGESTS
       "g++, cmake, pkg-config, libpetsc-real-dev, libopenmpi-dev, libhdf5-openmpi-dev, libeigen3-dev, "
       "libboost-dev, libtoml11-dev, nlohmann-json3-dev, libmuparser-dev")
include(CPack)

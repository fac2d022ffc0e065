#!/usr/bin/env bash
# Installs the Debian bookworm packages rdpdyn needs to build, test, check (clang-format, clang-tidy)
# and benchmark (and its Python module: pybind11-dev, whose CMake config the build finds,
# python3-dev, python3-pytest for its tests, python3-matplotlib for `rdpdyn plot` and the figures of docs/figures; file: CPack's DEB generator
# finds the ELF files with it (the minimal bookworm root has none); dpkg-dev: dpkg-shlibdeps, with
# which `cpack -G DEB` finds the package's Depends).
# Run as root on a fresh machine; packages already present are left as they are.
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14 dpkg-dev file
  libpetsc-real-dev openmpi-bin libopenmpi-dev
  libeigen3-dev libboost-dev catch2 libbenchmark-dev libfftw3-dev
  libcli11-dev libtoml11-dev nlohmann-json3-dev libmuparser-dev
  hdf5-tools python3-h5py python3-numpy python3-xarray python3-h5netcdf python3-mpmath
  pybind11-dev python3-dev python3-pytest python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all ${#packages[@]} packages present"

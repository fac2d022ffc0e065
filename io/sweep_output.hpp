#pragma once
// Outputs of `rdpdyn sweep` (layout in docs/hdf5.md, "Sweep files"): an HDF5 file whose datasets
// carry their axes as HDF5 dimension scales (h5py `.dims`, xarray through h5netcdf show named
// dimensions), and the same content as one JSON object of nested lists.
#include <filesystem>
#include <string>

#include "commands/sweep.hpp"

namespace rdpdyn {

/// What the outputs say about where a sweep came from.
struct SweepProvenance {
  std::string config_text;  ///< the effective configuration (file, then --set overrides)
  std::string config_path;
};

/// Writes `result` atomically (a temporary sibling renamed over `path`; nothing is left on failure).
/// Per analysis, group /sweep/<name> holds the axis scales (datasets named by their keys, then
/// `orders`), R (axes..., orders), epsilon, best_order and delta (axes...) when some point has a
/// delta, reason (axes...; "" where valid) and, for "best", chosen (axes...).
void write_sweep_hdf5(const std::filesystem::path& path, const SweepResult& result, const SweepProvenance& provenance);

/// {"command": "sweep", "version", "axes": [{"key", "values", "description"}], "orders", "points",
///  "valid_points", "analyses": {name: {"citation", "status", "status_note", "R", "epsilon",
///  "best_order", "delta", "reason", "chosen"?}}}; arrays nested as (axis 1, ..., axis N[, orders]),
/// NaN as null.
std::string sweep_to_json(const SweepResult& result);

}  // namespace rdpdyn

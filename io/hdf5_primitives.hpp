#pragma once
// Small HDF5 writing helpers shared by the report formats of io/ (comparison, sweep): scalar
// attributes as UTF-8 strings or float64, and float64 datasets of any shape.
#include <H5Cpp.h>
#include <H5DSpublic.h>

#include <ctime>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace rdpdyn::hdf5 {

inline void string_attribute(const H5::H5Object& o, const char* name, const std::string& value) {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);  // the TOML text may carry non-ASCII comments
  o.createAttribute(name, type, H5::DataSpace(H5S_SCALAR)).write(type, value);
}

inline void number_attribute(const H5::H5Object& o, const char* name, double value) {
  o.createAttribute(name, H5::PredType::IEEE_F64LE, H5::DataSpace(H5S_SCALAR))
      .write(H5::PredType::NATIVE_DOUBLE, &value);
}

/// "2025-01-31T12:00:00Z": now, ISO 8601 UTC.
inline std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

/// The root attributes every rdpdyn file carries, whatever the command (docs/hdf5.md, "Root
/// attributes of every file"): schema_version (int32), program, command, program_version,
/// created_utc.
inline void common_root_attributes(const H5::H5File& file, int schema_version, const char* command,
                                   const char* program_version) {
  file.createAttribute("schema_version", H5::PredType::STD_I32LE, H5::DataSpace(H5S_SCALAR))
      .write(H5::PredType::NATIVE_INT, &schema_version);
  string_attribute(file, "program", "rdpdyn");
  string_attribute(file, "command", command);
  string_attribute(file, "program_version", program_version);
  string_attribute(file, "created_utc", utc_now_iso8601());
}

/// A little-endian float64 dataset of shape `dims` holding `values` (row-major).
inline H5::DataSet number_dataset(const H5::Group& g, const std::string& name, std::span<const double> values,
                                  const std::vector<hsize_t>& dims) {
  H5::DataSet d =
      g.createDataSet(name, H5::PredType::IEEE_F64LE, H5::DataSpace(static_cast<int>(dims.size()), dims.data()));
  if (!values.empty()) d.write(values.data(), H5::PredType::NATIVE_DOUBLE);
  return d;
}

inline H5::DataSet vector_dataset(const H5::Group& g, const std::string& name, std::span<const double> values) {
  return number_dataset(g, name, values, {static_cast<hsize_t>(values.size())});
}

/// A variable-length UTF-8 string dataset of shape `dims` (row-major).
inline H5::DataSet string_dataset(const H5::Group& g, const std::string& name, const std::vector<std::string>& values,
                                  const std::vector<hsize_t>& dims) {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  H5::DataSet d = g.createDataSet(name, type, H5::DataSpace(static_cast<int>(dims.size()), dims.data()));
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const auto& v : values) pointers.push_back(v.c_str());
  if (!pointers.empty()) d.write(pointers.data(), type);
  return d;
}

/// Makes `d` a dimension scale named `name` (netCDF-4 / xarray read it as a coordinate).
inline void make_scale(const H5::DataSet& d, const std::string& name) {
  if (H5DSset_scale(d.getId(), name.c_str()) < 0) throw std::runtime_error("H5DSset_scale failed for " + name);
}

/// Attaches scale i to dimension i of `d` and labels the dimension with `labels[i]` (h5py:
/// .dims[i].label): xarray's h5netcdf engine then opens the file with its coordinates.
inline void attach_scales(const H5::DataSet& d, const std::vector<H5::DataSet>& scales,
                          const std::vector<std::string>& labels) {
  for (std::size_t i = 0; i < scales.size(); ++i) {
    if (H5DSattach_scale(d.getId(), scales[i].getId(), static_cast<unsigned>(i)) < 0 ||
        H5DSset_label(d.getId(), static_cast<unsigned>(i), labels[i].c_str()) < 0)
      throw std::runtime_error("attaching the dimension scale " + labels[i] + " failed");
  }
}

}  // namespace rdpdyn::hdf5

#include "io/hdf5_output.hpp"

#include <H5Cpp.h>

#include <cstdint>
#include <ctime>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/atomic_output.hpp"

namespace rdpdyn {
namespace {

// C21 Def. 3.2: N(0, s^2 I) is (1/s^2)-LSI, so c has the units of an inverse variance.
constexpr const char* kUnitsLsi = "1/(parameter units)^2 (C21 Def. 3.2: N(0, s^2 I) is 1/s^2-LSI)";
constexpr const char* kDescriptionLsi =
    "LSI constant c of the iterate law at each record; +inf for a point mass";
constexpr const char* kDescriptionR = "upper bound on R_alpha(theta_t || theta'_t)";

// Root string attributes that map one-to-one onto RunMetadata: one table for writer and reader.
constexpr std::pair<const char*, std::string RunMetadata::*> kMetadataAttributes[] = {
    {"program_version", &RunMetadata::program_version},
    {"engine", &RunMetadata::engine},
    {"gamma_mode", &RunMetadata::gamma_mode},
    {"algorithm", &RunMetadata::algorithm},
    {"lsi_model", &RunMetadata::lsi_model},
    {"initial_curve", &RunMetadata::initial_curve},
    {"method", &RunMetadata::method},
    {"config", &RunMetadata::config_text},
    {"config_path", &RunMetadata::config_path},
};

/// A file that is readable HDF5 but not a well-formed report.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Files use fixed-width little-endian types so that they mean the same on every host.
template <typename T>
struct H5Types;
template <>
struct H5Types<double> {
  static const H5::PredType& memory() { return H5::PredType::NATIVE_DOUBLE; }
  static const H5::PredType& file() { return H5::PredType::IEEE_F64LE; }
};
template <>
struct H5Types<std::int64_t> {
  static const H5::PredType& memory() { return H5::PredType::NATIVE_INT64; }
  static const H5::PredType& file() { return H5::PredType::STD_I64LE; }
};

// HDF5 prints its error stack to stderr before throwing; we report through exceptions instead.
// The previous setting is restored so other HDF5 users in the process (PETSc) keep theirs.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    H5::Exception::getAutoPrint(func_, &data_);
    H5::Exception::dontPrint();
  }
  ~SilenceHdf5Errors() { H5::Exception::setAutoPrint(func_, data_); }
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw std::runtime_error("HDF5 report '" + path.string() + "': " + what);
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string text = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + ")";
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// ---- attributes ------------------------------------------------------------------------------

void write_string_attribute(const H5::H5Object& object, const char* name, const std::string& value) {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);  // the TOML text may carry non-ASCII comments
  object.createAttribute(name, type, H5::DataSpace(H5S_SCALAR)).write(type, value);
}

std::string read_string_attribute(const H5::H5Object& object, const char* name) {
  const H5::Attribute attribute = object.openAttribute(name);
  std::string value;
  attribute.read(attribute.getStrType(), value);
  return value;
}

// ---- datasets --------------------------------------------------------------------------------

template <typename T>
H5::DataSet write_dataset(const H5::Group& group, const std::string& name,
                          const std::vector<T>& data, const std::vector<hsize_t>& dims) {
  const H5::DataSpace space(static_cast<int>(dims.size()), dims.data());
  const H5::DataSet dataset = group.createDataSet(name, H5Types<T>::file(), space);
  if (!data.empty()) dataset.write(data.data(), H5Types<T>::memory());  // H5Dwrite rejects null
  return dataset;
}

std::vector<hsize_t> dims_of(const H5::DataSet& dataset) {
  const H5::DataSpace space = dataset.getSpace();
  std::vector<hsize_t> dims(static_cast<std::size_t>(space.getSimpleExtentNdims()));
  space.getSimpleExtentDims(dims.data());
  return dims;
}

hsize_t length_of(const H5::Group& group, const std::string& name) {
  const H5::DataSet dataset = group.openDataSet(name);
  const std::vector<hsize_t> dims = dims_of(dataset);
  if (dims.size() != 1) {
    throw FormatError(dataset.getObjName() + " must be 1-D. Found shape " + shape_text(dims));
  }
  return dims[0];
}

// The shape is checked before reading, so a malformed file cannot overrun the buffer.
template <typename T>
std::vector<T> read_dataset(const H5::DataSet& dataset, const std::vector<hsize_t>& shape) {
  if (dims_of(dataset) != shape) {
    throw FormatError(dataset.getObjName() + " must have shape " + shape_text(shape) +
                      ". Found " + shape_text(dims_of(dataset)));
  }
  std::size_t count = 1;
  for (const hsize_t n : shape) count *= static_cast<std::size_t>(n);
  std::vector<T> data(count);
  if (count > 0) dataset.read(data.data(), H5Types<T>::memory());
  return data;
}

// ---- /closed_forms ---------------------------------------------------------------------------

// Tracking link creation order lets readers (ours and h5py) list closed forms in the order they
// were written; the C++ API of HDF5 1.10 has no wrapper for it.
H5::Group create_ordered_group(const H5::Group& parent, const char* name) {
  const H5::PropList gcpl(H5P_GROUP_CREATE);
  H5Pset_link_creation_order(gcpl.getId(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  const hid_t id = H5Gcreate2(parent.getId(), name, H5P_DEFAULT, gcpl.getId(), H5P_DEFAULT);
  if (id < 0 || H5Gclose(id) < 0) throw H5::GroupIException("H5Gcreate2", name);
  return parent.openGroup(name);
}

std::vector<std::string> names_in_creation_order(const H5::Group& group) {
  std::vector<std::string> names(static_cast<std::size_t>(group.getNumObjs()));
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto name_at = [&](char* buffer, std::size_t size) {
      return H5Lget_name_by_idx(group.getId(), ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, buffer,
                                size, H5P_DEFAULT);
    };
    const ssize_t length = name_at(nullptr, 0);
    if (length < 0) throw H5::GroupIException("H5Lget_name_by_idx", group.getObjName());
    names[i].resize(static_cast<std::size_t>(length) + 1);  // room for the terminating NUL
    name_at(names[i].data(), names[i].size());
    names[i].resize(static_cast<std::size_t>(length));
  }
  return names;
}

// ---- whole file ------------------------------------------------------------------------------

void check_shapes(const std::filesystem::path& path, const RunReport& report) {
  const Solution& s = report.solution;
  const std::size_t records = s.record_count();
  const std::size_t cells = records * s.orders.size();
  if (s.steps.size() != records || s.lsi_constant.size() != records) {
    fail(path, "steps and lsi_constant need one entry per record (" + std::to_string(records) +
                   "). Found " + std::to_string(s.steps.size()) + " and " +
                   std::to_string(s.lsi_constant.size()));
  }
  if (s.R.size() != cells) {
    fail(path, "R needs records x orders = " + std::to_string(cells) + " values. Found " +
                   std::to_string(s.R.size()));
  }
  std::set<std::string> names;
  for (const ClosedFormCurves& curves : report.closed_forms) {
    if (curves.name.empty() || curves.name.find('/') != std::string::npos ||
        !names.insert(curves.name).second) {
      fail(path, "closed form names must be non-empty, unique and free of '/'. Found '" +
                     curves.name + "'");
    }
    if (curves.R.size() != cells) {
      fail(path, "closed form '" + curves.name + "' needs " + std::to_string(cells) +
                     " values. Found " + std::to_string(curves.R.size()));
    }
  }
}

void write_file(const std::filesystem::path& file_path, const RunReport& report) {
  const Solution& s = report.solution;
  const hsize_t records = s.record_count();
  const hsize_t orders = s.orders.size();
  H5::H5File file(file_path.string(), H5F_ACC_TRUNC);

  write_string_attribute(write_dataset(file, "orders", s.orders, {orders}), "units", kUnitsOrder);
  write_string_attribute(write_dataset(file, "t", s.times, {records}), "units", kUnitsTime);
  write_dataset(file, "step", s.steps, {records});
  const H5::DataSet lsi = write_dataset(file, "lsi_constant", s.lsi_constant, {records});
  write_string_attribute(lsi, "units", kUnitsLsi);
  write_string_attribute(lsi, "description", kDescriptionLsi);
  const H5::DataSet rdp = write_dataset(file, "R", s.R, {records, orders});
  write_string_attribute(rdp, "units", kUnitsRdp);
  write_string_attribute(rdp, "description", kDescriptionR);

  const H5::Group closed_forms = create_ordered_group(file, "closed_forms");
  for (const ClosedFormCurves& curves : report.closed_forms) {
    const H5::DataSet dataset = write_dataset(closed_forms, curves.name, curves.R, {records, orders});
    write_string_attribute(dataset, "citation", curves.citation);
    write_string_attribute(dataset, "role", curves.role);
    write_string_attribute(dataset, "units", kUnitsRdp);
  }

  file.createAttribute("schema_version", H5::PredType::STD_I32LE, H5::DataSpace(H5S_SCALAR))
      .write(H5::PredType::NATIVE_INT, &kHdf5SchemaVersion);
  write_string_attribute(file, "program", "rdpdyn");
  for (const auto& [name, member] : kMetadataAttributes) {
    write_string_attribute(file, name, report.metadata.*member);
  }
  write_string_attribute(file, "units_R", kUnitsRdp);
  write_string_attribute(file, "units_t", kUnitsTime);
  write_string_attribute(file, "units_orders", kUnitsOrder);
  write_string_attribute(file, "created_utc", utc_now_iso8601());
  // Flush here: the destructors that finally close the file swallow errors, so a failed write
  // would otherwise go unnoticed and be renamed into place.
  file.flush(H5F_SCOPE_GLOBAL);
}

RunReport read_file(const std::filesystem::path& path) {
  const H5::H5File file(path.string(), H5F_ACC_RDONLY);
  if (!file.attrExists("program") || read_string_attribute(file, "program") != "rdpdyn") {
    throw FormatError("not an rdpdyn report (root attribute program != \"rdpdyn\")");
  }
  int version = 0;
  file.openAttribute("schema_version").read(H5::PredType::NATIVE_INT, &version);
  // Fields are only ever added, never renamed or redefined: any version >= 1 has all of ours.
  if (version < 1) throw FormatError("schema_version must be >= 1. Found " + std::to_string(version));

  RunReport report;
  Solution& s = report.solution;
  const hsize_t orders = length_of(file, "orders");
  const hsize_t records = length_of(file, "t");
  s.orders = read_dataset<double>(file.openDataSet("orders"), {orders});
  s.times = read_dataset<double>(file.openDataSet("t"), {records});
  s.steps = read_dataset<std::int64_t>(file.openDataSet("step"), {records});
  s.lsi_constant = read_dataset<double>(file.openDataSet("lsi_constant"), {records});
  s.R = read_dataset<double>(file.openDataSet("R"), {records, orders});

  const H5::Group closed_forms = file.openGroup("closed_forms");
  for (const std::string& name : names_in_creation_order(closed_forms)) {
    const H5::DataSet dataset = closed_forms.openDataSet(name);
    report.closed_forms.push_back({name, read_string_attribute(dataset, "citation"),
                                   read_string_attribute(dataset, "role"),
                                   read_dataset<double>(dataset, {records, orders})});
  }
  for (const auto& [name, member] : kMetadataAttributes) {
    report.metadata.*member = read_string_attribute(file, name);
  }
  return report;
}

}  // namespace

void write_report_hdf5(const std::filesystem::path& path, const RunReport& report) {
  check_shapes(path, report);
  const std::filesystem::path directory = path.has_parent_path() ? path.parent_path() : ".";
  if (!std::filesystem::is_directory(directory)) {
    fail(path, "directory '" + directory.string() + "' does not exist");
  }
  const SilenceHdf5Errors silence;
  try {
    write_atomically(path, [&](const std::filesystem::path& tmp) { write_file(tmp, report); });
  } catch (const H5::Exception& e) {
    fail(path, "cannot write (" + e.getFuncName() + ": " + e.getDetailMsg() + ")");
  }
}

RunReport read_report_hdf5(const std::filesystem::path& path) {
  const SilenceHdf5Errors silence;
  try {
    return read_file(path);
  } catch (const H5::Exception& e) {
    fail(path, "cannot read (" + e.getFuncName() + ": " + e.getDetailMsg() + ")");
  } catch (const FormatError& e) {
    fail(path, e.what());
  }
}

}  // namespace rdpdyn

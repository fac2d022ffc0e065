#include "io/hdf5_output.hpp"

#include "io/atomic_output.hpp"
#include "io/hdf5_primitives.hpp"

#include "numerics/format_number.hpp"

#include <H5Cpp.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace rdpdyn {
namespace {

// C21 Def. 3.2: N(0, s^2 I) is (1/s^2)-LSI, so c has the units of an inverse variance.
constexpr const char* kUnitsLsi = "1/(parameter units)^2 (C21 Def. 3.2: N(0, s^2 I) is 1/s^2-LSI)";
constexpr const char* kDescriptionLsi = "LSI constant c of the iterate law at each record; +inf for a point mass";
constexpr const char* kDescriptionR = "upper bound on R_alpha(theta_t || theta'_t)";
// The kind attribute of /extras/<name>: how the reader interprets the dataset.
constexpr const char* kKindRows = "rows";
constexpr const char* kKindPerOrder = "per-order";
// Root attribute listing the names of the extra root attributes, one per line.
constexpr const char* kExtraAttributesList = "extra_attributes";
// Root attributes listing the declared and the derived constants, one entry per line.
constexpr std::pair<const char*, std::vector<std::string> RunMetadata::*> kConstantLists[] = {
    {"declared_constants", &RunMetadata::declared_constants},
    {"derived_constants", &RunMetadata::derived_constants},
};

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

// ---- attributes ------------------------------------------------------------------------------

void write_string_attribute(const H5::H5Object& object, const char* name, const std::string& value) {
  hdf5::string_attribute(object, name, value);
}

/// A root attribute of the run (epsilon, delta, grid sizes, ...): a float64 when its text is a
/// number written by format_number (so it reads back to the same text), else a string; readers get
/// numbers, not strings.
void write_value_attribute(const H5::H5Object& object, const char* name, const std::string& value) {
  char* end = nullptr;
  const double x = value.empty() ? 0.0 : std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || format_number(x) != value)
    return write_string_attribute(object, name, value);
  object.createAttribute(name, H5::PredType::IEEE_F64LE, H5::DataSpace(H5S_SCALAR))
      .write(H5::PredType::NATIVE_DOUBLE, &x);
}

/// Reads back what write_value_attribute wrote, as text (numbers in their shortest exact form).
std::string read_value_attribute(const H5::H5Object& object, const char* name) {
  const H5::Attribute attribute = object.openAttribute(name);
  if (attribute.getTypeClass() != H5T_FLOAT) {
    std::string value;
    attribute.read(attribute.getStrType(), value);
    return value;
  }
  double x = 0.0;
  attribute.read(H5::PredType::NATIVE_DOUBLE, &x);
  return format_number(x);
}

std::string read_string_attribute(const H5::H5Object& object, const char* name) {
  const H5::Attribute attribute = object.openAttribute(name);
  std::string value;
  attribute.read(attribute.getStrType(), value);
  return value;
}

/// One entry per line (a newline inside an entry becomes a space).
std::string lines_of(const std::vector<std::string>& entries) {
  std::string out;
  for (std::string e : entries) {
    std::replace(e.begin(), e.end(), '\n', ' ');
    out += (out.empty() ? "" : "\n") + e;
  }
  return out;
}

std::vector<std::string> entries_of(const std::string& lines) {
  std::vector<std::string> out;
  for (std::size_t begin = 0; begin < lines.size();) {
    const std::size_t end = std::min(lines.find('\n', begin), lines.size());
    out.push_back(lines.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// ---- datasets --------------------------------------------------------------------------------

template <typename T>
H5::DataSet write_dataset(const H5::Group& group, const std::string& name, const std::vector<T>& data,
                          const std::vector<hsize_t>& dims) {
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
    throw FormatError(dataset.getObjName() + " must have shape " + shape_text(shape) + ". Found " +
                      shape_text(dims_of(dataset)));
  }
  std::size_t count = 1;
  for (const hsize_t n : shape) count *= static_cast<std::size_t>(n);
  std::vector<T> data(count);
  if (count > 0) dataset.read(data.data(), H5Types<T>::memory());
  return data;
}

// ---- extendible datasets (one row per record) -----------------------------------------------

// Chunks hold up to 64 rows and at most 1 MiB, the default chunk cache of a dataset: rows
// accumulate in the cache and reach the disk a chunk at a time, and a short run (whose partial
// last chunk is stored whole) wastes little space.
constexpr hsize_t kChunkBytes = hsize_t{1} << 20;
constexpr hsize_t kChunkMaxRows = 64;

/// An empty dataset of shape (0, row_shape...) that grows without limit in the first dimension.
template <typename T>
H5::DataSet create_row_dataset(const H5::Group& group, const std::string& name, const std::vector<hsize_t>& row_shape) {
  hsize_t row_bytes = sizeof(T);
  for (const hsize_t n : row_shape) row_bytes *= n;
  std::vector<hsize_t> dims{0}, max_dims{H5S_UNLIMITED};
  std::vector<hsize_t> chunk{std::clamp(kChunkBytes / row_bytes, hsize_t{1}, kChunkMaxRows)};
  for (const hsize_t n : row_shape) {
    dims.push_back(n);
    max_dims.push_back(n);
    chunk.push_back(n);
  }
  const int rank = static_cast<int>(dims.size());
  H5::DSetCreatPropList properties;
  properties.setChunk(rank, chunk.data());
  const H5::DataSpace space(rank, dims.data(), max_dims.data());
  return group.createDataSet(name, H5Types<T>::file(), space, properties);
}

void set_rows(const H5::DataSet& dataset, hsize_t rows) {
  std::vector<hsize_t> dims = dims_of(dataset);
  dims[0] = rows;
  dataset.extend(dims.data());  // H5Dset_extent: may also shrink
}

/// Writes `values` as row `row` of `dataset` (which already has more than `row` rows).
template <typename T>
void write_row(const H5::DataSet& dataset, hsize_t row, const T* values) {
  const H5::DataSpace file_space = dataset.getSpace();
  std::vector<hsize_t> count(static_cast<std::size_t>(file_space.getSimpleExtentNdims()));
  file_space.getSimpleExtentDims(count.data());
  std::vector<hsize_t> start(count.size(), 0);
  start[0] = row;
  count[0] = 1;
  file_space.selectHyperslab(H5S_SELECT_SET, count.data(), start.data());
  const H5::DataSpace memory_space(static_cast<int>(count.size()), count.data());
  dataset.write(values, H5Types<T>::memory(), memory_space, file_space);
}

// ---- /closed_forms and /extras --------------------------------------------------------------

// Tracking link creation order lets readers (ours and h5py) list closed forms and extras in the
// order they were written; the C++ API of HDF5 1.10 has no wrapper for it.
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
      return H5Lget_name_by_idx(group.getId(), ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, buffer, size, H5P_DEFAULT);
    };
    const ssize_t length = name_at(nullptr, 0);
    if (length < 0) throw H5::GroupIException("H5Lget_name_by_idx", group.getObjName());
    names[i].resize(static_cast<std::size_t>(length) + 1);  // room for the terminating NUL
    name_at(names[i].data(), names[i].size());
    names[i].resize(static_cast<std::size_t>(length));
  }
  return names;
}

// ---- checks ----------------------------------------------------------------------------------

// Names become HDF5 link names: HDF5 would read '/' as a path separator and refuses duplicates.
void check_name(const std::filesystem::path& path, const std::string& what, const std::string& name,
                std::set<std::string>& taken) {
  if (name.empty() || name.find('/') != std::string::npos || !taken.insert(name).second) {
    fail(path, what + " names must be non-empty, unique and free of '/'. Found '" + name + "'");
  }
}

void check_length(const std::filesystem::path& path, const std::string& what, std::size_t found, std::size_t expected) {
  if (found != expected) {
    fail(path, what + " needs " + std::to_string(expected) + " values. Found " + std::to_string(found));
  }
}

// Extra root attributes must not shadow the schema's own; '\n' separates the names in the list.
void check_extra_attribute_name(const std::filesystem::path& path, const std::string& name) {
  bool reserved = name == kExtraAttributesList;
  for (const char* own :
       {"schema_version", "program", "command", "units_R", "units_t", "units_orders", "created_utc"}) {
    reserved = reserved || name == own;
  }
  for (const auto& [own, member] : kMetadataAttributes) reserved = reserved || name == own;
  for (const auto& [own, member] : kConstantLists) reserved = reserved || name == own;
  reserved = reserved || name == "terms" || name == "quantity";
  if (name.empty() || name.find('\n') != std::string::npos || reserved) {
    fail(path,
         "extra attribute names must be non-empty, free of newlines and not one of the "
         "schema's root attributes. Found '" +
             name + "'");
  }
}

// ---- reading ---------------------------------------------------------------------------------

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
  for (const auto& [name, member] : kConstantLists)  // written since the constant checks
    if (file.attrExists(name)) report.metadata.*member = entries_of(read_string_attribute(file, name));

  if (file.nameExists("extras")) {  // schema >= 2
    const H5::Group extras = file.openGroup("extras");
    for (const std::string& name : names_in_creation_order(extras)) {
      const H5::DataSet dataset = extras.openDataSet(name);
      const std::string kind = read_string_attribute(dataset, "kind");
      const std::string description = read_string_attribute(dataset, "description");
      // Other kinds belong to later schema versions; readers skip fields they do not know.
      if (kind == kKindRows) {
        report.row_series.push_back({name, description, read_string_attribute(dataset, "units"),
                                     read_dataset<double>(dataset, {records, orders})});
      } else if (kind == kKindPerOrder) {
        report.per_order.push_back({name, description, read_dataset<double>(dataset, {orders})});
      }
    }
  }
  if (file.attrExists(kExtraAttributesList)) {  // schema >= 2
    const std::string list = read_string_attribute(file, kExtraAttributesList);
    for (std::size_t begin = 0; begin < list.size();) {
      const std::size_t end = std::min(list.find('\n', begin), list.size());
      const std::string name = list.substr(begin, end - begin);
      report.extra_attributes[name] = read_value_attribute(file, name.c_str());
      begin = end + 1;
    }
  }
  return report;
}

}  // namespace

// ---- streaming writer ------------------------------------------------------------------------

struct Hdf5ReportStream::State {
  std::filesystem::path path;
  std::filesystem::path tmp;
  hsize_t orders = 0;
  hsize_t records = 0;
  // Rows allocated in the record datasets: grown by doubling and trimmed to `records` by
  // finish(), because resizing per record made appending several times slower.
  hsize_t capacity = 0;
  std::vector<std::string> series_names;
  std::set<std::string> extras_names;  // taken under /extras
  std::vector<std::string> closed_form_names;
  H5::H5File file;
  H5::DataSet t, step, lsi, R;
  std::vector<H5::DataSet> series;
  std::vector<H5::DataSet> closed_forms;
  bool writing = false;  // the temporary exists and finish() has not succeeded

  void check_writing() const {
    if (!writing) fail(path, "the stream is finished or was discarded after an error");
  }

  std::vector<H5::DataSet*> record_datasets() {
    std::vector<H5::DataSet*> all{&t, &step, &lsi, &R};
    for (H5::DataSet& dataset : series) all.push_back(&dataset);
    for (H5::DataSet& dataset : closed_forms) all.push_back(&dataset);
    return all;
  }

  // Datasets first: the file stays open as long as any of its objects is.
  std::vector<H5::IdComponent*> objects() {
    const std::vector<H5::DataSet*> datasets = record_datasets();
    std::vector<H5::IdComponent*> all(datasets.begin(), datasets.end());
    all.push_back(&file);
    return all;
  }

  void discard() noexcept {
    writing = false;
    try {
      const SilenceHdf5Errors silence;
      for (H5::IdComponent* object : objects()) {
        try {
          object->close();
        } catch (...) {  // keep closing the others; the file is removed anyway
        }
      }
    } catch (...) {}
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    release_temporary(tmp);
  }

  // Runs one HDF5 step. HDF5 errors become std::runtime_error naming the target; any failure may
  // leave the file half-updated, so the stream is discarded.
  template <typename F>
  void guard(const char* verb, F&& body) {
    const SilenceHdf5Errors silence;
    try {
      body();
    } catch (const H5::Exception& e) {
      discard();
      fail(path, std::string("cannot ") + verb + " (" + e.getFuncName() + ": " + e.getDetailMsg() + ")");
    } catch (...) {
      discard();
      throw;
    }
  }
};

Hdf5ReportStream::Hdf5ReportStream(std::filesystem::path path, std::vector<double> orders, const RunMetadata& metadata,
                                   std::vector<RowSeriesSpec> row_series,
                                   const std::vector<ClosedFormLabel>& closed_forms)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = std::move(path);
  s.orders = orders.size();
  const std::filesystem::path directory = s.path.has_parent_path() ? s.path.parent_path() : ".";
  if (!std::filesystem::is_directory(directory)) {
    fail(s.path, "directory '" + directory.string() + "' does not exist");
  }
  if (orders.empty()) fail(s.path, "needs at least one order");  // a chunk cannot be empty
  for (const RowSeriesSpec& spec : row_series) {
    check_name(s.path, "extras", spec.name, s.extras_names);
    s.series_names.push_back(spec.name);
  }
  std::set<std::string> closed_form_names;
  for (const ClosedFormLabel& label : closed_forms) {
    check_name(s.path, "closed form", label.name, closed_form_names);
    s.closed_form_names.push_back(label.name);
  }

  s.tmp = reserve_temporary(s.path);  // removed by the signal handlers too
  s.writing = true;
  s.guard("create the file", [&] {
    s.file = H5::H5File(s.tmp.string(), H5F_ACC_TRUNC);
    const H5::DataSet orders_dataset = write_dataset(s.file, "orders", orders, {s.orders});
    write_string_attribute(orders_dataset, "units", kUnitsOrder);
    s.t = create_row_dataset<double>(s.file, "t", {});
    write_string_attribute(s.t, "units", kUnitsTime);
    s.step = create_row_dataset<std::int64_t>(s.file, "step", {});
    write_string_attribute(s.step, "units", "steps (count)");
    write_string_attribute(s.step, "description", "number of completed steps at each record (0 = the initial data)");
    s.lsi = create_row_dataset<double>(s.file, "lsi_constant", {});
    write_string_attribute(s.lsi, "units", kUnitsLsi);
    write_string_attribute(s.lsi, "description", kDescriptionLsi);
    s.R = create_row_dataset<double>(s.file, "R", {s.orders});
    write_string_attribute(s.R, "units", kUnitsRdp);
    write_string_attribute(s.R, "description", kDescriptionR);
    // /step and /orders are the dimension scales of every record-by-order array (netCDF-4's
    // coordinates: xarray.open_dataset(file, engine="h5netcdf") opens the root with them).
    hdf5::make_scale(s.step, "step");
    hdf5::make_scale(orders_dataset, "orders");
    const auto by_step = [&](const H5::DataSet& d) { hdf5::attach_scales(d, {s.step}, {"step"}); };
    const auto by_step_and_order = [&](const H5::DataSet& d) {
      hdf5::attach_scales(d, {s.step, orders_dataset}, {"step", "orders"});
    };
    by_step(s.t);
    by_step(s.lsi);
    by_step_and_order(s.R);

    // Closed forms are rows too: one per record, appended with it.
    const H5::Group closed_forms_group = create_ordered_group(s.file, "closed_forms");
    for (const ClosedFormLabel& label : closed_forms) {
      s.closed_forms.push_back(create_row_dataset<double>(closed_forms_group, label.name, {s.orders}));
      by_step_and_order(s.closed_forms.back());
      write_string_attribute(s.closed_forms.back(), "citation", label.citation);
      write_string_attribute(s.closed_forms.back(), "role", label.role);
      write_string_attribute(s.closed_forms.back(), "units", kUnitsRdp);
    }
    const H5::Group extras = create_ordered_group(s.file, "extras");
    for (const RowSeriesSpec& spec : row_series) {
      s.series.push_back(create_row_dataset<double>(extras, spec.name, {s.orders}));
      by_step_and_order(s.series.back());
      write_string_attribute(s.series.back(), "kind", kKindRows);
      write_string_attribute(s.series.back(), "description", spec.description);
      write_string_attribute(s.series.back(), "units", spec.units);
    }

    hdf5::common_root_attributes(s.file, kHdf5SchemaVersion, "solve", metadata.program_version.c_str());
    for (const auto& [name, member] : kMetadataAttributes) {
      if (std::string_view(name) != "program_version") write_string_attribute(s.file, name, metadata.*member);
    }
    for (const auto& [name, member] : kConstantLists) write_string_attribute(s.file, name, lines_of(metadata.*member));
    write_string_attribute(s.file, "terms", run_terms_line(metadata.terms));
    write_string_attribute(s.file, "quantity", metadata.quantity);
    write_string_attribute(s.file, "units_R", kUnitsRdp);
    write_string_attribute(s.file, "units_t", kUnitsTime);
    write_string_attribute(s.file, "units_orders", kUnitsOrder);
  });
}

Hdf5ReportStream::~Hdf5ReportStream() {
  if (state_->writing) state_->discard();
}

std::size_t Hdf5ReportStream::record_count() const { return state_->records; }

void Hdf5ReportStream::append_record(std::int64_t step, double t, double lsi_constant, std::span<const double> R,
                                     const std::vector<std::span<const double>>& series_rows,
                                     const std::vector<std::span<const double>>& closed_form_rows) {
  State& s = *state_;
  s.check_writing();
  // Checked before writing anything, so a bad call leaves the stream as it was.
  check_length(s.path, "a row of R", R.size(), s.orders);
  if (series_rows.size() != s.series.size()) {
    fail(s.path, "append_record needs a row for each of the " + std::to_string(s.series.size()) +
                     " row series. Found " + std::to_string(series_rows.size()));
  }
  for (std::size_t i = 0; i < series_rows.size(); ++i) {
    check_length(s.path, "a row of '" + s.series_names[i] + "'", series_rows[i].size(), s.orders);
  }
  if (closed_form_rows.size() != s.closed_forms.size()) {
    fail(s.path, "append_record needs a row for each of the " + std::to_string(s.closed_forms.size()) +
                     " closed forms. Found " + std::to_string(closed_form_rows.size()));
  }
  for (std::size_t i = 0; i < closed_form_rows.size(); ++i) {
    check_length(s.path, "a row of closed form '" + s.closed_form_names[i] + "'", closed_form_rows[i].size(), s.orders);
  }
  s.guard("append a record", [&] {
    if (s.records == s.capacity) {
      s.capacity = std::max(2 * s.capacity, kChunkMaxRows);
      for (const H5::DataSet* dataset : s.record_datasets()) set_rows(*dataset, s.capacity);
    }
    write_row(s.t, s.records, &t);
    write_row(s.step, s.records, &step);
    write_row(s.lsi, s.records, &lsi_constant);
    write_row(s.R, s.records, R.data());
    for (std::size_t i = 0; i < series_rows.size(); ++i) {
      write_row(s.series[i], s.records, series_rows[i].data());
    }
    for (std::size_t i = 0; i < closed_form_rows.size(); ++i) {
      write_row(s.closed_forms[i], s.records, closed_form_rows[i].data());
    }
    ++s.records;
  });
}

void Hdf5ReportStream::finish(const std::vector<PerOrderVector>& per_order,
                              const std::map<std::string, std::string>& extra_attributes) {
  State& s = *state_;
  s.check_writing();
  const hsize_t records = s.records;
  const hsize_t orders = s.orders;
  std::set<std::string> extras_names = s.extras_names;  // a copy: failed checks change nothing
  for (const PerOrderVector& vector : per_order) {
    check_name(s.path, "extras", vector.name, extras_names);
    check_length(s.path, "per-order vector '" + vector.name + "'", vector.values.size(), orders);
  }
  for (const auto& [name, value] : extra_attributes) check_extra_attribute_name(s.path, name);

  s.guard("finish", [&] {
    for (const H5::DataSet* dataset : s.record_datasets()) set_rows(*dataset, records);
    {
      const H5::Group extras = s.file.openGroup("extras");
      for (const PerOrderVector& vector : per_order) {
        const H5::DataSet dataset = write_dataset(extras, vector.name, vector.values, {orders});
        write_string_attribute(dataset, "kind", kKindPerOrder);
        write_string_attribute(dataset, "description", vector.description);
      }
      std::string names;
      for (const auto& [name, value] : extra_attributes) {
        write_value_attribute(s.file, name.c_str(), value);
        names += (names.empty() ? "" : "\n") + name;
      }
      write_string_attribute(s.file, kExtraAttributesList, names);
    }
    // Flush and close explicitly: the destructors swallow errors, so a failed write would
    // otherwise go unnoticed and be renamed into place.
    s.file.flush(H5F_SCOPE_GLOBAL);
    for (H5::IdComponent* object : s.objects()) object->close();
    std::filesystem::rename(s.tmp, s.path);
    release_temporary(s.tmp);
    s.writing = false;
  });
}

// ---- whole report ----------------------------------------------------------------------------

void write_report_hdf5(const std::filesystem::path& path, const RunReport& report) {
  const Solution& s = report.solution;
  const std::size_t records = s.record_count();
  const std::size_t orders = s.orders.size();
  if (s.steps.size() != records || s.lsi_constant.size() != records) {
    fail(path, "steps and lsi_constant need one entry per record (" + std::to_string(records) + "). Found " +
                   std::to_string(s.steps.size()) + " and " + std::to_string(s.lsi_constant.size()));
  }
  // Whole arrays are checked up front: the rows cut from them below could not see a surplus.
  check_length(path, "R (records x orders)", s.R.size(), records * orders);
  std::vector<RowSeriesSpec> specs;
  for (const RowSeries& series : report.row_series) {
    check_length(path, "row series '" + series.name + "'", series.values.size(), records * orders);
    specs.push_back({series.name, series.description, series.units});
  }
  std::vector<ClosedFormLabel> labels;
  for (const ClosedFormCurves& curves : report.closed_forms) {
    check_length(path, "closed form '" + curves.name + "'", curves.R.size(), records * orders);
    labels.push_back({curves.name, curves.citation, curves.role});
  }

  Hdf5ReportStream stream(path, s.orders, report.metadata, std::move(specs), labels);
  std::vector<std::span<const double>> rows(report.row_series.size()), closed_form_rows(labels.size());
  for (std::size_t i = 0; i < records; ++i) {
    for (std::size_t j = 0; j < rows.size(); ++j) {
      rows[j] = std::span(report.row_series[j].values).subspan(i * orders, orders);
    }
    for (std::size_t j = 0; j < closed_form_rows.size(); ++j) {
      closed_form_rows[j] = std::span(report.closed_forms[j].R).subspan(i * orders, orders);
    }
    stream.append_record(s.steps[i], s.times[i], s.lsi_constant[i], s.row(i), rows, closed_form_rows);
  }
  stream.finish(report.per_order, report.extra_attributes);
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

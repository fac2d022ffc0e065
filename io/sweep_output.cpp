#include "io/sweep_output.hpp"

#include <H5Cpp.h>
#include <H5DSpublic.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "commands/run_report.hpp"
#include "io/atomic_output.hpp"
#include "io/hdf5_primitives.hpp"
#include "rdpdyn_version.hpp"

namespace rdpdyn {
namespace {

constexpr const char* kEpsilonConversion =
    "smallest of the RDP conversions (Mironov 2017 Prop. 3; Balle et al. 2020 Thm 21 = Canonne, Kamath, Steinke "
    "2020 Prop. 12; Asoodeh et al. 2021; the zCDP route for bounds linear in alpha), rounded outward, at the "
    "point's [report] delta, minimised over alpha in [1.001, 10000] and the orders where the bound is known at "
    "any order, else over the orders (as rdpdyn compare); the dataset `conversion` names the one attaining it";

bool any_delta(const SweepResult& r) {
  for (double d : r.delta)
    if (!std::isnan(d)) return true;
  return false;
}

std::vector<hsize_t> axes_shape(const SweepResult& r) {
  std::vector<hsize_t> dims;
  for (const auto& a : r.spec.axes) dims.push_back(a.values.size());
  return dims;
}

std::string joined_keys(const SweepResult& r) {
  std::string out;
  for (const auto& a : r.spec.axes) out += (out.empty() ? "" : "\n") + a.key;
  return out;
}

void write_surface(H5::Group& sweep, const SweepResult& r, const SweepSurface& s) {
  using namespace hdf5;
  H5::Group g = sweep.createGroup(s.name);
  string_attribute(g, "citation", s.citation);
  string_attribute(g, "status", s.status);
  string_attribute(g, "status_note", s.status_note);
  // The axes as dimension scales in the group itself, so that one group opens as a whole
  // dataset with coordinates (xarray.open_dataset(..., group="sweep/<name>")).
  std::vector<H5::DataSet> scales;
  std::vector<std::string> labels;
  for (const auto& a : r.spec.axes) {
    labels.push_back(a.key);
    H5::DataSet d = vector_dataset(g, a.key, a.values);
    make_scale(d, a.key);
    string_attribute(d, "description", a.description);
    scales.push_back(d);
  }
  H5::DataSet orders = vector_dataset(g, "orders", r.orders);
  make_scale(orders, "orders");
  string_attribute(orders, "units", kUnitsOrder);

  const std::vector<hsize_t> shape = axes_shape(r);
  std::vector<hsize_t> shape_R = shape;
  shape_R.push_back(r.orders.size());
  std::vector<H5::DataSet> scales_R = scales;
  scales_R.push_back(orders);
  std::vector<std::string> labels_R = labels;
  labels_R.push_back("orders");
  H5::DataSet R = number_dataset(g, "R", s.R, shape_R);
  string_attribute(R, "units", kUnitsRdp);
  string_attribute(R, "description",
                   "upper bound on R_alpha of the last iterate at each point; NaN where `reason` says why not");
  attach_scales(R, scales_R, labels_R);
  if (any_delta(r)) {
    H5::DataSet eps = number_dataset(g, "epsilon", s.epsilon, shape);
    string_attribute(eps, "units", "nats (epsilon of (epsilon, delta)-DP)");
    string_attribute(eps, "conversion", kEpsilonConversion);
    attach_scales(eps, scales, labels);
    H5::DataSet order = number_dataset(g, "best_order", s.best_order, shape);
    string_attribute(order, "units", kUnitsOrder);
    string_attribute(order, "description", "the order attaining epsilon");
    attach_scales(order, scales, labels);
    H5::DataSet conversion = string_dataset(g, "conversion", s.conversion, shape);
    string_attribute(conversion, "description",
                     "the conversion attaining epsilon at each point: improved, asoodeh, mironov, zcdp or gdp "
                     "(docs/analyses.md section 4); empty where epsilon is NaN");
    attach_scales(conversion, scales, labels);
    H5::DataSet delta = number_dataset(g, "delta", r.delta, shape);
    string_attribute(delta, "description", "the point's [report] delta");
    attach_scales(delta, scales, labels);
  }
  H5::DataSet reason = string_dataset(g, "reason", s.reason, shape);
  string_attribute(reason, "description", "empty where the point's values are valid, else why they are NaN");
  attach_scales(reason, scales, labels);
  if (!s.chosen.empty()) {
    H5::DataSet chosen = string_dataset(g, "chosen", s.chosen, shape);
    string_attribute(chosen, "description",
                     "the analysis attaining the smallest epsilon (or R at the largest order) at each point");
    attach_scales(chosen, scales, labels);
  }
}

/// Values nested as (axis 1, ..., axis N, inner...) lists from a row-major array.
nlohmann::json nested(const auto& flat, std::span<const std::size_t> dims, std::size_t& next) {
  auto out = nlohmann::json::array();
  if (dims.empty()) return out;
  for (std::size_t i = 0; i < dims[0]; ++i) {
    if (dims.size() == 1) {
      const auto& v = flat[next++];
      if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>)
        out.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json());
      else
        out.push_back(v);
    } else {
      out.push_back(nested(flat, dims.subspan(1), next));
    }
  }
  return out;
}

nlohmann::json nested_values(const auto& flat, std::vector<std::size_t> dims) {
  std::size_t next = 0;
  return nested(flat, dims, next);
}

}  // namespace

void write_sweep_hdf5(const std::filesystem::path& path, const SweepResult& r, const SweepProvenance& provenance) {
  write_atomically(path, [&](const std::filesystem::path& tmp) {
    try {
      using namespace hdf5;
      H5::Exception::dontPrint();
      H5::H5File file(tmp.string(), H5F_ACC_TRUNC);
      common_root_attributes(file, kHdf5SchemaVersion, "sweep", kVersion);
      string_attribute(file, "config", provenance.config_text);
      string_attribute(file, "config_path", provenance.config_path);
      string_attribute(file, "units_R", kUnitsRdp);
      string_attribute(file, "units_orders", kUnitsOrder);
      number_attribute(file, "points", static_cast<double>(r.spec.point_count()));
      number_attribute(file, "valid_points", static_cast<double>(r.valid_points()));
      H5::Group sweep = file.createGroup("sweep");
      string_attribute(sweep, "axes", joined_keys(r));
      std::string names;
      for (const auto& s : r.surfaces) names += (names.empty() ? "" : "\n") + s.name;
      string_attribute(sweep, "analyses", names);
      for (const auto& s : r.surfaces) write_surface(sweep, r, s);
    } catch (const H5::Exception& e) {
      throw std::runtime_error("HDF5 sweep '" + path.string() + "': " + e.getDetailMsg());
    }
  });
}

std::string sweep_to_json(const SweepResult& r) {
  nlohmann::json j;
  j["command"] = "sweep";
  j["version"] = kVersion;
  j["axes"] = nlohmann::json::array();
  std::vector<std::size_t> dims;
  for (const auto& a : r.spec.axes) {
    j["axes"].push_back({{"key", a.key}, {"values", a.values}, {"description", a.description}});
    dims.push_back(a.values.size());
  }
  std::vector<std::size_t> dims_R = dims;
  dims_R.push_back(r.orders.size());
  j["orders"] = r.orders;
  j["points"] = r.spec.point_count();
  j["valid_points"] = r.valid_points();
  j["units"] = {{"R", kUnitsRdp}, {"orders", kUnitsOrder}};
  j["analyses"] = nlohmann::json::object();
  for (const auto& s : r.surfaces) {
    nlohmann::json a{{"citation", s.citation},
                     {"status", s.status},
                     {"status_note", s.status_note},
                     {"R", nested_values(s.R, dims_R)},
                     {"reason", nested_values(s.reason, dims)}};
    if (any_delta(r)) {
      a["epsilon"] = nested_values(s.epsilon, dims);
      a["best_order"] = nested_values(s.best_order, dims);
      a["conversion"] = nested_values(s.conversion, dims);
      a["delta"] = nested_values(r.delta, dims);
    }
    if (!s.chosen.empty()) a["chosen"] = nested_values(s.chosen, dims);
    j["analyses"][s.name] = std::move(a);
  }
  return j.dump();
}

}  // namespace rdpdyn

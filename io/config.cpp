#include "io/config.hpp"

#include <string>
#include <toml.hpp>
#include <vector>

#include "accounting/peer_orders.hpp"
#include "io/config/sections.hpp"
#include "io/config_document.hpp"
#include "io/toml_section.hpp"
#include "models/run_validation.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"

// The configuration reader: the document's tables in the order their meaning needs (the adjacency
// before the noise units, the algorithm before its LSI model and events), each read by its file
// under io/config/, then the run checked once by models/run_validation.hpp.
namespace rdpdyn {

RunConfig parse_config_text(const std::string& text, const std::string& source_name,
                            const std::vector<std::string>& overrides) {
  toml::value data = parse_toml_document(text, source_name);
  for (const auto& o : overrides) apply_override(data, o);
  if (data.is_table() && data.as_table().count("sweep"))
    throw SpecError("sweep", "a table", "is read only by `rdpdyn sweep` (this command takes one point)");
  return config_from_document(data, effective_config_text(text, overrides), source_name, overrides);
}

std::vector<double> orders_from_document(const toml::value& data) {
  return config_reader::parse_orders(Section(data, "").table("orders"));
}

RunConfig config_from_document(const toml::value& data, std::string text, const std::string& source_name,
                               const std::vector<std::string>& overrides) {
  using namespace config_reader;
  RunConfig cfg;
  cfg.text = std::move(text);
  cfg.overrides = overrides;
  cfg.path = source_name;
  const Section root(data, "");
  root.allow_only({"orders", "algorithm", "lsi", "analysis", "grid", "initial", "events", "output", "domain", "report",
                   "quadratic"});
  RunSpec& spec = cfg.spec;
  if (root.has("orders")) spec.orders = parse_orders(root.table("orders"));
  // [domain] first: the adjacency fixes what a DP-SGD noise multiplier means (docs/config.md).
  if (root.has("domain")) parse_domain(root.table("domain"), spec);
  parse_algorithm(root.table("algorithm"), spec.algorithm, spec.adjacency);
  if (!root.has("orders")) {
    // Accounting alone (a noise multiplier, no sensitivity): the peers' orders, as opacus takes them.
    const AlgorithmSpec& a = spec.algorithm;
    if (a.kind != AlgorithmKind::NoisySgd || a.declares_sensitivity)
      throw SpecError("orders", "missing",
                      "this table is required (only a run for accounting alone, a noise multiplier and no "
                      "sensitivity, may leave it out and take opacus' orders; docs/config.md)");
    spec.orders = peer_default_orders();
    spec.orders_by_default = true;
  }
  // [lsi] is optional for noisy-sgd: only the PDI and the analyses of the LSI model need it.
  if (root.has("lsi") || spec.algorithm.kind != AlgorithmKind::NoisySgd)
    parse_lsi(root.table("lsi"), spec.lsi, spec.algorithm);
  else
    spec.declares_lsi = false;
  if (spec.algorithm.loss == LossKind::Quadratic) {
    if (!root.has("quadratic"))
      throw SpecError("quadratic", "missing", "algorithm.loss = \"quadratic\" needs the table [quadratic]");
    spec.quadratic = parse_quadratic(root.table("quadratic"));
  } else if (root.has("quadratic")) {
    throw SpecError("quadratic", "a table", "is used only with algorithm.loss = \"quadratic\"");
  }
  if (root.has("analysis")) parse_analysis(root.table("analysis"), cfg);
  spec.gamma_by_default = !root.has("analysis") || !root.table("analysis").has("gamma");
  if (root.has("grid")) parse_grid(root.table("grid"), cfg.grid);
  if (root.has("report")) parse_report(root.table("report"), spec);
  if (root.has("initial")) spec.initial = parse_initial(root.table("initial"));
  if (root.has("events")) spec.events = parse_events(root, spec);
  if (root.has("output")) parse_output(root.table("output"), spec);
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
  validate_run(cfg, *engines.find(cfg.engine));  // cfg.engine: a registered name (parse_analysis)
  return cfg;
}

RunConfig load_config(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  return parse_config_text(read_config_file(path), path.string(), overrides);
}

}  // namespace rdpdyn

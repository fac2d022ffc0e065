// rdpdyn: certified Rényi-DP bounds for the last iterate of noisy gradient methods, by solving the
// privacy-dynamics PDI of Chourasia, Ye & Shokri (2021).
//
// Sample runs:
//   rdpdyn solve examples/figure1_lambda1.toml -o figure1.h5
//   rdpdyn solve examples/figure2_squared_loss.toml --json
//   rdpdyn compare examples/ye_shokri_fmnist.toml --json
//   rdpdyn calibrate examples/ye_shokri_fmnist.toml --epsilon 3 --delta 1e-5 --analysis ye-shokri-thm4.2
//   rdpdyn calibrate examples/dpsgd_accounting.toml --epsilon 2 --delta 1e-5 --for noise_multiplier
//   rdpdyn sweep examples/sweep_surface.toml -o surface.h5
//   rdpdyn solve examples/fd_convergence.toml -- -log_view
//   rdpdyn plot figure1.h5 -o figure1.png
//   rdpdyn validate
// Exit codes: 0 success, 1 a validation check failed or an internal error, 2 bad input.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include "apps/plot_command.hpp"
#include "apps/progress_line.hpp"
#include "analyses/closed_form_curves.hpp"
#include "apps/signals.hpp"
#include "commands/accounting_run.hpp"
#include "commands/calibrate.hpp"
#include "commands/closed_form_check.hpp"
#include "commands/compare.hpp"
#include "commands/convergence_study.hpp"
#include "commands/solve.hpp"
#include "commands/sweep_distribution.hpp"
#include "io/atomic_output.hpp"
#include "io/calibration_output.hpp"
#include "io/comparison_output.hpp"
#include "io/config.hpp"
#include "io/dp_event_json.hpp"
#include "io/hdf5_output.hpp"
#include "io/json_output.hpp"
#include "models/configured_solve.hpp"
#include "io/sweep_config.hpp"
#include "io/sweep_output.hpp"
#include "models/run_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"
#include "numerics/near_miss.hpp"
#include "rdpdyn_version.hpp"
#include "solver/engine_registry.hpp"
#include "solver/petsc_session.hpp"
#include "validation/theorem_suite.hpp"

namespace {

constexpr int kExitBadInput = 2;
/// The end of every --help.
constexpr const char* kFooter =
    "Exit codes: 0 success; 1 a validation check failed or an internal error (a bug); 2 bad input "
    "(the message names the key or option, the value and the rule; no output file is left).\n"
    "PETSc options (finite-difference engine) go after `--`: rdpdyn solve x.toml -- -ts_type rk -log_view; "
    "an option PETSc never reads is an error (exit 2).\n"
    "Under mpirun, PETSc and MPI start on every rank; otherwise only when the run needs them.";
/// solve and compare show progress only once they have run this long (a sweep at once).
constexpr double kProgressDelaySeconds = 1.0;

void print_summary(const rdpdyn::RunReport& report) {
  const auto& s = report.solution;
  std::printf("rdpdyn %s  engine: %s  gamma: %s  step %lld  t = %.6g\n", report.metadata.program_version.c_str(),
              report.metadata.engine.c_str(), report.metadata.gamma_mode.c_str(),
              static_cast<long long>(s.steps.back()), s.times.back());
  std::printf("%12s %16s", "alpha", "R (rdpdyn)");
  for (const auto& cf : report.closed_forms) std::printf(" %16s", cf.name.c_str());
  std::printf("\n");
  const std::size_t last = s.record_count() - 1;
  // Nine significant digits rounded outward: up for R and the upper bounds, down for a lower bound.
  for (std::size_t j = 0; j < s.orders.size(); ++j) {
    std::printf("%12.6g %16s", s.orders[j], rdpdyn::format_rounded_up(s.final_row()[j], 9).c_str());
    for (const auto& cf : report.closed_forms) {
      const double r = cf.R[last * s.orders.size() + j];
      std::printf(
          " %16s",
          (cf.role == "lower-bound" ? rdpdyn::format_rounded_down(r, 9) : rdpdyn::format_rounded_up(r, 9)).c_str());
    }
    std::printf("\n");
  }
  // [report] delta / epsilon: the numbers asked for, beside the table (as the JSON carries them).
  const auto& extra = report.extra_attributes;
  if (const auto it = extra.find("epsilon"); it != extra.end())
    std::printf("epsilon = %s at delta = %s (order %.4g, %s conversion)\n",
                rdpdyn::format_rounded_up(std::stod(it->second), 6).c_str(), extra.at("delta").c_str(),
                std::stod(extra.at("best_order")), extra.count("conversion") ? extra.at("conversion").c_str() : "RDP");
  if (const auto it = extra.find("delta_at_epsilon"); it != extra.end())
    std::printf("delta = %s at epsilon = %s\n", rdpdyn::format_rounded_up(std::stod(it->second), 6).c_str(),
                extra.at("report_epsilon").c_str());
  if (const std::string line = rdpdyn::run_terms_line(report.metadata.terms); !line.empty())
    std::printf("%s\n", line.c_str());
  if (!report.metadata.terms.ecosystem_hint.empty()) std::printf("%s\n", report.metadata.terms.ecosystem_hint.c_str());
  if (!report.metadata.quantity.empty()) std::printf("%s\n", report.metadata.quantity.c_str());
  if (const auto it = report.extra_attributes.find("fd_max_relative_gap"); it != report.extra_attributes.end())
    std::printf(
        "R is certified along characteristics; the finite-difference value differs by at most "
        "%s relative (HDF5 /extras/R_finite_difference)\n",
        it->second.c_str());
}

/// An output path is checked before any work (io/atomic_output.hpp).
void check_output_directory(const std::string& output) {
  if (!output.empty()) rdpdyn::check_output_path(output, "-o");
}

/// "did you mean" hints for a command line CLI11 refused: a misspelt subcommand or option.
std::string near_misses(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> commands;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) commands.push_back(sub->get_name());
  const CLI::App* chosen = nullptr;
  std::string hints;
  for (const auto& arg : args) {
    if (!chosen && !arg.empty() && arg[0] != '-') {
      for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (sub->get_name() == arg) chosen = sub;
      if (chosen) continue;
      if (const std::string near = rdpdyn::closest_name(arg, commands); !near.empty())
        hints += "rdpdyn: did you mean '" + near + "' instead of '" + arg + "'?\n";
      continue;
    }
    if (!chosen || arg.rfind("--", 0) != 0) continue;
    const std::string name = arg.substr(2, arg.find('=') - 2);
    std::vector<std::string> options{"help"};
    bool known = false;
    for (const auto* o : chosen->get_options())
      for (const auto& l : o->get_lnames()) {
        options.push_back(l);
        known = known || l == name;
      }
    if (known) continue;
    if (const std::string near = rdpdyn::closest_name(name, options); !near.empty())
      hints += "rdpdyn: did you mean '--" + near + "' instead of '" + arg + "'?\n";
  }
  return hints;
}

/// PETSc (and MPI) start only for the engine that needs them (docs/performance.md).
rdpdyn::EngineRegistry engines_for(const rdpdyn::RunConfig& config, rdpdyn::PetscSession& petsc) {
  return rdpdyn::engines_for(config.engine, petsc);
}

/// What an engine is (not to solve with): the registry over MPI_COMM_SELF starts nothing.
rdpdyn::MemoryEstimate run_memory(const rdpdyn::RunConfig& config, rdpdyn::RunCommand command) {
  const rdpdyn::EngineRegistry engines = rdpdyn::engine_registry(MPI_COMM_SELF);
  return rdpdyn::estimate_run_memory(config, rdpdyn::configured_engine(config, engines), command);
}

int run_solve(const std::string& config_path, const std::string& output, bool json, bool quiet, bool table,
              rdpdyn::PetscSession& petsc, const std::vector<std::string>& sets) {
  const rdpdyn::RunConfig config = rdpdyn::load_config(config_path, sets);
  check_output_directory(output);
  rdpdyn::require_memory_fits(run_memory(config, rdpdyn::RunCommand::Solve), rdpdyn::memory_budget());
  const rdpdyn::EngineRegistry engines = engines_for(config, petsc);
  if (!output.empty()) {  // the records are streamed to the file: they must fit on its disk
    const std::size_t rows = 1 + rdpdyn::configured_engine(config, engines).row_series().size() +
                             rdpdyn::ClosedFormRows(config.spec).labels().size();
    rdpdyn::check_output_space(output, rdpdyn::estimate_solve_output(config.spec, rows));
  }
  const int rank = petsc.rank();
  std::optional<rdpdyn::Hdf5ReportSink> hdf5;
  if (!output.empty() && rank == 0) hdf5.emplace(output);  // one writer
  rdpdyn::ProgressLine line("rdpdyn solve", "steps", rdpdyn::progress_wanted(quiet, rank), kProgressDelaySeconds);
  const rdpdyn::RunReport report =
      rdpdyn::solve_run(config, engines, hdf5 ? &*hdf5 : nullptr, [&](std::int64_t done, std::int64_t total) {
        line.update(static_cast<std::size_t>(done), static_cast<std::size_t>(total));
      });
  line.finish();
  if (rank != 0) return 0;  // one writer
  if (json) std::cout << rdpdyn::report_to_json(report) << std::endl;
  // With -o the file holds the records; the table is printed only when asked (--table).
  if (!json && (output.empty() || table)) print_summary(report);
  if (!json && !output.empty() && !table) std::printf("rdpdyn solve: %s (the table: --table)\n", output.c_str());
  return 0;
}

/// `validate CONFIG`: R against every closed form that applies at the configured settings; exit 1
/// when one contradicts R beyond `tolerance` (commands/closed_form_check.hpp).
int run_validate_config(const std::string& config_path, double tolerance, rdpdyn::PetscSession& petsc,
                        const std::vector<std::string>& sets) {
  const rdpdyn::RunConfig config = rdpdyn::load_config(config_path, sets);
  const rdpdyn::EngineRegistry engines = engines_for(config, petsc);
  const rdpdyn::RunReport report = rdpdyn::solve_run(config, engines);
  if (petsc.rank() != 0) return 0;
  const auto gaps = rdpdyn::closed_form_gaps(report, tolerance);
  if (gaps.empty()) {
    std::printf("no closed form applies at these settings (docs/config.md, \"Which closed forms are reported\")\n");
    return 0;
  }
  std::printf("%-14s %-12s %22s %10s %8s  %s\n", "closed form", "role", "largest (R - form)/form", "at step", "order",
              "verdict");
  bool ok = true;
  for (const auto& g : gaps) {
    const char* verdict = g.contradicts       ? "CONTRADICTS"
                          : g.above_exact     ? "above (not tight)"
                          : g.role == "exact" ? "equal"
                                              : "consistent";
    std::printf("%-14s %-12s %22.3e %10lld %8.4g  %s\n", g.name.c_str(), g.role.c_str(), g.relative_gap,
                static_cast<long long>(g.step), g.order, verdict);
    ok = ok && !g.contradicts;
  }
  std::printf(
      "tolerance %.3g: R may not lie below an exact form or a lower bound; above an exact form it is not "
      "tight (another gamma or LSI constant than the theorem's); an upper bound or baseline may lie on "
      "either side of R (another proof or gamma)\n",
      tolerance);
  return ok ? 0 : 1;
}

int run_convergence(const std::string& config_path, int grids, rdpdyn::PetscSession& petsc) {
  const rdpdyn::RunConfig config = rdpdyn::load_config(config_path);
  petsc.require();
  const int rank = petsc.rank();
  const auto study = rdpdyn::run_convergence_study(config, petsc.comm(), grids);
  if (rank != 0) return 0;
  std::printf(
      "finite-difference value vs the exact characteristic solution at the final time, %zu "
      "orders off the inflow boundary's reach\n",
      study.orders.size());
  std::printf("%10s %12s %16s %10s\n", "cells", "dy", "max rel error", "order");
  // Errors near the unit roundoff are noise: their ratios say nothing about the order.
  constexpr double kRoundOff = 1e-12;
  bool round_off = false;
  for (std::size_t i = 0; i < study.rows.size(); ++i) {
    const auto& r = study.rows[i];
    const bool noise = r.max_relative_error < kRoundOff || (i > 0 && study.rows[i - 1].max_relative_error < kRoundOff);
    round_off = round_off || noise;
    if (noise || !std::isfinite(r.observed_order))
      std::printf("%10lld %12.4e %16.6e %10s\n", static_cast<long long>(r.cells), r.dy, r.max_relative_error,
                  noise ? "round-off" : "-");
    else
      std::printf("%10lld %12.4e %16.6e %10.3f\n", static_cast<long long>(r.cells), r.dy, r.max_relative_error,
                  r.observed_order);
  }
  if (round_off)
    std::printf(
        "errors below 1e-12 are at round-off level: the engine is exact to rounding there (e.g. data linear "
        "in alpha), so no order of convergence can be measured\n");
  return 0;
}

/// The run `compare` takes: a configuration file, or an opacus history or a DpEvent (JSON) read as one.
rdpdyn::RunConfig compare_run(const std::string& config_path, const std::string& opacus_history,
                              const std::string& dp_event, const std::vector<std::string>& sets) {
  const int given = !config_path.empty() + !opacus_history.empty() + !dp_event.empty();
  if (given != 1)
    throw rdpdyn::SpecError("CONFIG", given == 0 ? "missing" : "given with --from-opacus or --from-dp-event",
                            "give one of CONFIG, --from-opacus HISTORY.json, --from-dp-event EVENT.json");
  if (!config_path.empty()) return rdpdyn::load_config(config_path, sets);
  const bool opacus = !opacus_history.empty();
  const std::string& path = opacus ? opacus_history : dp_event;
  const nlohmann::json doc = rdpdyn::read_json_file(path, opacus ? "--from-opacus" : "--from-dp-event");
  const rdpdyn::AccountingRun run =
      opacus ? rdpdyn::accounting_run_from_opacus_history(doc) : rdpdyn::accounting_run_from_dp_event(doc);
  const std::string source = (opacus ? "the opacus history " : "the DpEvent ") + path;
  return rdpdyn::parse_config_text(rdpdyn::accounting_run_toml(run, source), path, sets);
}

int run_export_dp_event(const std::string& config_path, const std::vector<std::string>& sets) {
  const rdpdyn::RunConfig config = rdpdyn::load_config(config_path, sets);
  const rdpdyn::AccountingRun run = rdpdyn::accounting_run_of(config);
  std::cout << rdpdyn::dp_event_json(run).dump(2) << std::endl;
  std::fprintf(stderr, "rdpdyn: neighbouring relation %s (give it to the accountant: dp_accounting's %s)\n",
               run.add_remove ? "add/remove" : "replace-one", run.add_remove ? "ADD_OR_REMOVE_ONE" : "REPLACE_ONE");
  return 0;
}

int run_compare(const rdpdyn::RunConfig& config, const std::string& output, bool json, bool quiet, bool wide, bool all,
                rdpdyn::PetscSession& petsc) {
  check_output_directory(output);
  rdpdyn::require_memory_fits(run_memory(config, rdpdyn::RunCommand::Compare), rdpdyn::memory_budget());
  const rdpdyn::EngineRegistry engines = engines_for(config, petsc);
  const int rank = petsc.rank();
  rdpdyn::ProgressLine line("rdpdyn compare", "analyses", rdpdyn::progress_wanted(quiet, rank), kProgressDelaySeconds);
  const rdpdyn::Comparison comparison =
      rdpdyn::run_comparison(config, engines, [&](std::size_t done, std::size_t total) { line.update(done, total); });
  line.finish();
  if (rank != 0) return 0;
  if (!output.empty()) rdpdyn::write_comparison_hdf5(output, comparison, config);
  if (json)
    std::cout << rdpdyn::comparison_to_json(comparison) << std::endl;
  else
    std::cout << rdpdyn::comparison_table(comparison, wide, all);
  return 0;
}

/// `calibrate --for`: as given, else the noise key the configuration uses (noise_multiplier for a
/// DP-SGD run configured by its multiplier, sigma otherwise).
rdpdyn::CalibrationTarget calibration_target(const std::string& given, const rdpdyn::RunConfig& config) {
  if (given == "steps") return rdpdyn::CalibrationTarget::Steps;
  if (given == "noise_multiplier") return rdpdyn::CalibrationTarget::NoiseMultiplier;
  if (given == "sigma") return rdpdyn::CalibrationTarget::Sigma;
  return rdpdyn::default_calibration_target(config);
}

int run_calibrate(const std::string& config_path, rdpdyn::CalibrationRequest request, bool epsilon_given,
                  bool delta_given, const std::string& target, bool json, rdpdyn::PetscSession& petsc,
                  const std::vector<std::string>& sets) {
  const rdpdyn::RunConfig config = rdpdyn::load_config(config_path, sets);
  // The target from the command line, else from the configuration's [report] table.
  if (!epsilon_given) {
    if (!config.spec.report_epsilon)
      throw rdpdyn::SpecError("--epsilon", "missing",
                              "give the target epsilon, or [report] epsilon in the configuration");
    request.epsilon = *config.spec.report_epsilon;
  }
  if (!delta_given) {
    if (!config.spec.report_delta)
      throw rdpdyn::SpecError("--delta", "missing", "give the target delta, or [report] delta in the configuration");
    request.delta = *config.spec.report_delta;
  }
  request.target = calibration_target(target, config);
  const int rank = petsc.rank();
  rdpdyn::ProgressLine line("rdpdyn calibrate", "", rdpdyn::progress_wanted(false, rank), kProgressDelaySeconds);
  request.on_evaluation = [&](int count, const std::string& where, double epsilon) {
    line.note(std::to_string(count) + " candidates, the last " + where + ": epsilon " +
              rdpdyn::format_rounded_up(epsilon, 6) + " (target " + rdpdyn::format_number(request.epsilon) + ")");
  };
  const rdpdyn::CalibrationOutcome outcome = rdpdyn::calibrate_run(config, request, engines_for(config, petsc));
  line.finish();
  if (rank != 0) return 0;
  std::cout << (json ? rdpdyn::calibration_to_json(outcome) : rdpdyn::calibration_summary(outcome)) << std::endl;
  return 0;
}

int run_sweep(const std::string& config_path, const std::string& output, bool json, bool quiet,
              rdpdyn::PetscSession& petsc, const std::vector<std::string>& sets) {
  const rdpdyn::SweepConfiguration sweep = rdpdyn::SweepConfiguration::load(config_path, sets);
  check_output_directory(output);
  const rdpdyn::MemoryBudget budget = rdpdyn::memory_budget();
  rdpdyn::require_memory_fits(rdpdyn::estimate_sweep_memory(sweep.spec().point_count(), sweep.orders().size(),
                                                            sweep.spec().analyses.size(), petsc.size()),
                              budget);
  // Points run on one rank each: the finite-difference engine of a point works on MPI_COMM_SELF.
  const rdpdyn::EngineRegistry engines = rdpdyn::engine_registry(MPI_COMM_SELF);
  const rdpdyn::PointConfiguration configure = [&](std::span<const double> values) {
    rdpdyn::RunConfig config = sweep.point(values);
    // A point that cannot fit is an invalid point (its reason names the key), not the sweep's end.
    rdpdyn::require_memory_fits(
        rdpdyn::estimate_run_memory(config, rdpdyn::configured_engine(config, engines), rdpdyn::RunCommand::Compare),
        budget);
    rdpdyn::start_backend_of(config.engine, petsc);  // one process: no collective
    return config;
  };
  const rdpdyn::SweepSpec& spec = sweep.spec();
  std::vector<double> costs;
  for (std::size_t p = 0; p < spec.point_count(); ++p) costs.push_back(sweep.estimated_cost(spec.point(p)));
  const int rank = petsc.rank();
  rdpdyn::ProgressLine line("rdpdyn sweep", "points", rdpdyn::progress_wanted(quiet, rank));
  const std::size_t total = spec.point_count();
  const int ranks = petsc.size();
  const rdpdyn::SweepResult result = rdpdyn::run_distributed_sweep(
      spec, sweep.orders(), configure, engines, costs, petsc.comm(),
      [&](std::size_t done, std::size_t mine) {  // rank 0's share, scaled to the whole sweep
        line.update(ranks == 1 ? done : done * total / std::max<std::size_t>(mine, 1), total);
      });
  line.finish();
  if (rank != 0) return 0;
  if (result.valid_points() == 0)
    throw rdpdyn::SpecError("sweep.axis", "every point",
                            "no point of the sweep is valid; the first says: " + result.first_invalid());
  if (!output.empty()) rdpdyn::write_sweep_hdf5(output, result, {sweep.text(), sweep.source_name()});
  if (json)
    std::cout << rdpdyn::sweep_to_json(result) << std::endl;
  else if (output.empty() || !quiet)
    std::printf(
        "rdpdyn sweep: %zu points (%zu valid) x %zu orders, analyses %s%s\n", total, result.valid_points(),
        sweep.orders().size(),
        [&] {
          std::string names;
          for (const auto& a : spec.analyses) names += (names.empty() ? "" : ", ") + a;
          return names;
        }()
            .c_str(),
        output.empty() ? " (no -o: nothing written; --json prints the surfaces)" : (" -> " + output).c_str());
  return 0;
}

int run_validate(int rank) {
  const auto results = rdpdyn::run_theorem_suite();
  bool all = true;
  if (rank == 0) std::printf("%-22s %14s %10s  %s\n", "check", "max rel err", "tolerance", "result");
  for (const auto& r : results) {
    all = all && r.passed;
    if (rank == 0)
      std::printf("%-22s %14.3e %10.1e  %s  %s\n", r.name.c_str(), r.max_relative_error, r.tolerance,
                  r.passed ? "PASS" : "FAIL", r.description.c_str());
  }
  if (rank == 0) std::printf("%zu checks, %s\n", results.size(), all ? "all passed" : "FAILURES");
  return all ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rdpdyn: Renyi privacy dynamics of noisy gradient descent (C21 PDI solver)", "rdpdyn"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.option_defaults()->always_capture_default();  // help shows each option's default
  app.set_version_flag("--version", std::string("rdpdyn ") + rdpdyn::kVersion);
  app.require_subcommand(1);
  app.footer(kFooter);

  std::string config_path, output;
  bool json = false, quiet = false;  // --quiet: no progress line (solve, compare, sweep)
  bool table = false;                // solve --table: the table too when writing -o
  auto* solve = app.add_subcommand("solve", "Solve the PDI for a TOML configuration (docs/config.md)");
  solve->add_option("config", config_path, "Configuration file (TOML)")->required();
  solve->add_option("-o,--output", output, "Write the solution grid to this HDF5 file (docs/hdf5.md)");
  solve->add_flag("--json", json, "Print a JSON summary (final-time R and closed forms) on stdout");
  solve->add_flag("--quiet", quiet, "No progress line on stderr");
  solve->add_flag("--table", table, "With -o, print the final-time table as well");
  solve->footer(kFooter);
  std::vector<std::string> sets;  // --set KEY=VALUE, on solve, compare and calibrate (docs/config.md)
  const auto add_set = [&sets](CLI::App* command) {
    command
        ->add_option("--set", sets,
                     "Override a key of the configuration, KEY=VALUE (repeatable), e.g. "
                     "--set algorithm.sigma=0.1 (docs/config.md)")
        ->allow_extra_args(false)
        ->default_str("");
  };
  add_set(solve);
  std::string compare_config, compare_output, from_opacus, from_dp_event;
  bool compare_json = false, compare_wide = false, compare_all = false;
  auto* compare = app.add_subcommand("compare", "Every analysis of the configured run side by side (docs/analyses.md)");
  compare->add_option("config", compare_config, "Configuration file (TOML)");
  compare->add_option("--from-opacus", from_opacus,
                      "Instead of CONFIG: an opacus accountant history, JSON [[noise_multiplier, sample_rate, steps], "
                      "...] (docs/config.md, \"Runs from other libraries\")");
  compare->add_option("--from-dp-event", from_dp_event,
                      "Instead of CONFIG: a dp_accounting DpEvent, its to_named_tuple() as JSON");
  compare->add_option("-o,--output", compare_output, "Write the comparison to this HDF5 file");
  compare->add_flag("--json", compare_json, "Print the comparison as one JSON object on stdout");
  compare->add_flag("--wide", compare_wide, "The table with R at every configured order (default: four of them)");
  compare->add_flag("--all", compare_all,
                    "The table with every analysis, each that does not apply with its reason (default: their count)");
  compare->add_flag("--quiet", quiet, "No progress line on stderr");
  compare->footer(kFooter);
  add_set(compare);
  std::string calibrate_config, calibrate_for;
  rdpdyn::CalibrationRequest calibration;
  bool calibrate_json = false;
  auto* calibrate =
      app.add_subcommand("calibrate", "Smallest noise (or largest number of steps) meeting a target (epsilon, delta)");
  calibrate->add_option("config", calibrate_config, "Configuration file (TOML)")->required();
  // Default: the configuration's [report] epsilon and delta (no default of the program's own to show).
  CLI::Option* calibrate_epsilon =
      calibrate->add_option("--epsilon", calibration.epsilon, "Target epsilon (default: [report] epsilon)")
          ->default_str("");
  CLI::Option* calibrate_delta =
      calibrate->add_option("--delta", calibration.delta, "Target delta (default: [report] delta)")->default_str("");
  calibrate
      ->add_option("--for", calibrate_for,
                   "What to calibrate: sigma (C21 units), noise_multiplier (DP-SGD, noisy-sgd) or steps "
                   "(default: the noise key the configuration uses)")
      ->check(CLI::IsMember({"sigma", "noise_multiplier", "steps"}));
  calibrate->add_option("--analysis", calibration.analysis,
                        "Which bound must meet the target: best (default) or an analysis name of compare");
  calibrate->add_option("--max-steps", calibration.max_steps, "Largest number of steps tried (--for steps)");
  calibrate->add_flag("--json", calibrate_json, "Print the result as one JSON object");
  calibrate->footer(kFooter);
  add_set(calibrate);
  std::string export_config;
  auto* export_dp_event = app.add_subcommand(
      "export-dp-event", "The run's mechanisms as a dp_accounting DpEvent (to_named_tuple() as JSON) on stdout");
  export_dp_event->add_option("config", export_config, "Configuration file (TOML)")->required();
  export_dp_event->footer(kFooter);
  add_set(export_dp_event);
  std::string sweep_config, sweep_output;
  bool sweep_json = false;
  auto* sweep = app.add_subcommand("sweep", "Bound surfaces over the axes of the configuration's [sweep] table");
  sweep->add_option("config", sweep_config, "Configuration file (TOML) with a [sweep] table (docs/config.md)");
  sweep->get_option("config")->required();
  sweep->add_option("-o,--output", sweep_output, "Write the surfaces to this HDF5 file (docs/hdf5.md)");
  sweep->add_flag("--json", sweep_json, "Print the surfaces as one JSON object on stdout");
  sweep->add_flag("--quiet", quiet, "No progress line on stderr");
  sweep->footer(kFooter);
  add_set(sweep);
  bool analyses_json = false;
  auto* analyses = app.add_subcommand("analyses", "List the registered analyses: name, status, citation");
  analyses->add_flag("--json", analyses_json, "Print the registry as JSON");
  std::string plot_file, plot_output, plot_orders, plot_analysis;
  int plot_dpi = 100;
  auto* plot = app.add_subcommand(
      "plot", "Draw an output of solve, compare or sweep as a PNG, PDF or SVG (Python: h5py, matplotlib)");
  plot->add_option("file", plot_file, "An HDF5 file written by rdpdyn solve, compare or sweep (docs/hdf5.md)")
      ->required();
  plot->add_option("-o,--output", plot_output, "The picture to write, .png, .pdf or .svg (default: FILE with .png)");
  plot->add_option("--orders", plot_orders,
                   "solve: the recorded orders to draw, comma-separated (default: four spread)");
  plot->add_option("--analysis", plot_analysis, "sweep: draw this analysis only (default: each)");
  plot->add_option("--dpi", plot_dpi, "Resolution of the picture (dots per inch)")->check(CLI::Range(10, 1200));
  plot->footer(kFooter);
  auto* validate = app.add_subcommand(
      "validate", "Run the built-in theorem suite; with CONFIG, R against every closed form at its settings");
  std::string convergence_config, validate_config;
  double validate_tolerance = 1e-9;
  validate->add_option(
      "config", validate_config,
      "A configuration: tabulate R against every closed form that applies (exit 1 on a contradiction)");
  validate->add_option("--tolerance", validate_tolerance, "Relative tolerance of validate CONFIG")
      ->check(CLI::Range(0.0, 1.0));
  add_set(validate);
  int grids = 4;
  validate->add_option("--convergence", convergence_config,
                       "Grid-refinement study of the finite-difference engine on CONFIG");
  validate->add_option("--grids", grids, "Number of grids of the study (cells doubled each time)")
      ->check(CLI::Range(2, 12));
  validate->footer(kFooter);

  rdpdyn::install_signal_handlers();
  // rdpdyn's own arguments come before `--`, PETSc's after it.
  std::vector<std::string> own, petsc_options;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      petsc_options.assign(argv + i + 1, argv + argc);
      break;
    }
    own.emplace_back(argv[i]);
  }
  // `rdpdyn`, `rdpdyn help` and `rdpdyn help COMMAND` print the help (of the command), exit 0.
  if (own.empty() || own.front() == "help") {
    const CLI::App* about = &app;
    if (own.size() >= 2) {
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (sub->get_name() == own[1]) about = sub;
      if (about == &app) {
        std::fprintf(stderr, "rdpdyn: error: 'help %s': no such command\n", own[1].c_str());
        std::fputs(near_misses(app, {own[1]}).c_str(), stderr);
        return kExitBadInput;
      }
    }
    std::cout << (about == &app ? app.help() : about->help("rdpdyn"));
    return 0;
  }
  try {
    std::vector<std::string> reversed(own.rbegin(), own.rend());  // CLI11 takes them last first
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    if (code == 0) return 0;  // -h, --help, --version
    std::fputs(near_misses(app, own).c_str(), stderr);
    return kExitBadInput;
  }

  try {
    if (*analyses) {
      if (!petsc_options.empty())
        throw rdpdyn::SpecError("--", petsc_options.front(), "`rdpdyn analyses` takes no PETSc options");
      std::cout << (analyses_json ? rdpdyn::analysis_registry_json() + "\n" : rdpdyn::analysis_registry_table());
      return 0;
    }
    if (*plot) {  // no PETSc: Python draws (apps/plot_command.hpp)
      if (!petsc_options.empty())
        throw rdpdyn::SpecError("--", petsc_options.front(), "`rdpdyn plot` takes no PETSc options");
      check_output_directory(plot_output);
      std::vector<std::string> args{plot_file, "--dpi", std::to_string(plot_dpi)};
      if (!plot_output.empty()) args.insert(args.end(), {"-o", plot_output});
      if (!plot_orders.empty()) args.insert(args.end(), {"--orders", plot_orders});
      if (!plot_analysis.empty()) args.insert(args.end(), {"--analysis", plot_analysis});
      return rdpdyn::exec_plot_module(argv[0], args);
    }
    // PETSc starts here only under an MPI launcher or with PETSc options; else when an engine needs it.
    rdpdyn::PetscSession petsc(argv[0], petsc_options);
    int code = 0;
    if (*solve)
      code = run_solve(config_path, output, json, quiet, table, petsc, sets);
    else if (*sweep)
      code = run_sweep(sweep_config, sweep_output, sweep_json, quiet, petsc, sets);
    else if (*compare)
      code = run_compare(compare_run(compare_config, from_opacus, from_dp_event, sets), compare_output, compare_json,
                         quiet, compare_wide, compare_all, petsc);
    else if (*export_dp_event)
      code = run_export_dp_event(export_config, sets);
    else if (*calibrate)
      code = run_calibrate(calibrate_config, calibration, calibrate_epsilon->count() > 0, calibrate_delta->count() > 0,
                           calibrate_for, calibrate_json, petsc, sets);
    else if (!convergence_config.empty())
      code = run_convergence(convergence_config, grids, petsc);
    else if (!validate_config.empty())
      code = run_validate_config(validate_config, validate_tolerance, petsc, sets);
    else
      code = run_validate(petsc.rank());
    // As -options_left: a PETSc option nothing read is most likely misspelt.
    if (const auto unused = petsc.unused_options(); !unused.empty() && !petsc_options.empty()) {
      if (petsc.rank() == 0)
        for (const auto& o : unused)
          std::fprintf(stderr,
                       "rdpdyn: error: PETSc option '%s' was never used (misspelt, or not used by this run's engine)\n",
                       o.c_str());
      return kExitBadInput;
    }
    return code;
  } catch (const rdpdyn::SpecError& e) {
    std::fprintf(stderr, "rdpdyn: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::domain_error& e) {  // a user schedule left its domain (e.g. c(s) < 0)
    std::fprintf(stderr, "rdpdyn: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {  // a broken precondition (std::invalid_argument, ...): a bug to report
    std::fprintf(stderr, "rdpdyn: internal error: %s\n", e.what());
    return 1;
  }
}

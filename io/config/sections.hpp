#pragma once
// The readers of the configuration's tables (docs/config.md), one file each under io/config/:
// TOML values to typed fields, each value checked against its own rule (sign, range, name, size).
// Rules that relate several tables of a run live in models/run_validation.hpp, called once by
// io/config.cpp after every table is read. Internal to io/: io/config.hpp is the entry.
#include <cstdint>
#include <optional>
#include <vector>

#include "io/toml_section.hpp"
#include "models/run_config.hpp"

namespace rdpdyn::config_reader {

/// [orders]: values, or min, max, count (log-spaced in alpha - 1).
std::vector<double> parse_orders(const Section& s);
/// [domain]: diameter, adjacency, lipschitz_loss (read first: the adjacency fixes the noise units).
void parse_domain(const Section& s, RunSpec& spec);
/// [algorithm] of every kind; the noise converted to C21 units (docs/math.md section 1.4).
void parse_algorithm(const Section& s, AlgorithmSpec& a, Adjacency adjacency);
/// [algorithm] kind = "pdi": the PDI by its coefficients.
void parse_pdi_algorithm(const Section& s, AlgorithmSpec& a);
/// The interval boundary of a pdi run's event, from its `time`.
std::int64_t pdi_event_step(const Section& e, const AlgorithmSpec& a);
/// Whether [algorithm] (or a schedule phase) gives a value that changes with the step.
bool has_per_step_values(const Section& s);
/// Phases from values given per step (each step evaluated and checked; equal neighbours merged).
void expand_per_step_values(const Section& s, AlgorithmSpec& a, Adjacency adjacency, double batch,
                            std::optional<std::int64_t> steps);
/// The Poisson rate of a table: sampling_rate, or batch_size / n; nullopt when it gives neither.
std::optional<double> poisson_rate(const Section& s, double n);
/// Whether a Poisson run's sampling_rate or batch_size is an expression in the step k (or a preset).
bool poisson_rate_varies(const Section& s);
/// The rate of the first step of such a run of K steps (its q for the noise conversions of the run's scalars).
double first_poisson_rate(const Section& s, double n, std::int64_t K);
/// The phases of a Poisson run whose rate is an expression in k and K: every step evaluated and
/// checked (q in (0, 1]), equal neighbours one phase with its own rate; the run's step size and noise
/// (constant) converted with each phase's b = q n.
void expand_poisson_rates(const Section& s, AlgorithmSpec& a, Adjacency adjacency, std::optional<double> eta,
                          std::optional<double> sigma, std::int64_t steps);
/// A phase of a Poisson noisy-sgd run (its own rate, step size, S_g, noise), the run's values inherited.
void read_poisson_phase(const Section& p, const AlgorithmSpec& a, Adjacency adjacency, std::optional<double> eta,
                        std::optional<double> sigma, Phase& phase);
/// [lsi] of every kind.
void parse_lsi(const Section& s, LsiSpec& lsi, const AlgorithmSpec& algorithm);
/// [analysis]: gamma, engine, rtol, pld_accuracy, pld_grid.
void parse_analysis(const Section& s, RunConfig& cfg);
/// [grid]: the finite-difference engine's grid.
void parse_grid(const Section& s, FiniteDifferenceGrid& g);
/// [quadratic]: the Hessian (symmetric positive definite), the pair, the start's std.
QuadraticLoss parse_quadratic(const Section& s);
/// [initial]: the initial divergence curve R_0(alpha).
InitialCurve parse_initial(const Section& s);
/// [[events]], in the order of their steps, each with its table for messages.
std::vector<ScheduledEvent> parse_events(const Section& root, const RunSpec& spec);
/// [report]: delta, epsilon, include_disputed.
void parse_report(const Section& s, RunSpec& spec);
/// [output]: record_every, record_steps.
void parse_output(const Section& s, RunSpec& spec);

}  // namespace rdpdyn::config_reader

#pragma once
// The largest size the configuration may ask for, checked when it is read (docs/config.md,
// "Limits"). Each is far above any run a researcher asks for and far below what would exhaust
// the machine or overflow a count: an absurd value is refused with exit 2 before any work.
#include <cstdint>

namespace rdpdyn::limits {

/// Orders (orders.count, orders.values): samples of one smooth curve R(alpha). 2^16 orders are
/// spaced 2e-4 apart in ln(alpha - 1) even over 1 < alpha <= 10^6; a row is 512 KiB.
inline constexpr std::int64_t kMaxOrders = std::int64_t{1} << 16;

/// Steps of a run (algorithm.steps, a phase's steps, their sum, Langevin intervals, calibrate
/// --max-steps). The outward rounding margin 4 (K + 16) u grows with K (numerics/outward_rounding.hpp):
/// at 2^40 it is 4.9e-4 relative; and the engines step one by one (about 60 ns a step), so 2^40
/// steps already take about 18 hours.
inline constexpr std::int64_t kMaxSteps = std::int64_t{1} << 40;

/// [[algorithm.schedule]] phases and [[events]]: each is one phase (an event up to two) of the
/// privacy program, a few hundred bytes; 2^20 of them stay well under a gigabyte.
inline constexpr std::int64_t kMaxPhases = std::int64_t{1} << 20;
/// [domain] records_per_user: group privacy multiplies epsilon by k and the Rényi orders by 2^c
/// (c = ceil(log2 k)); beyond 2^20 records a user every bound is vacuous.
inline constexpr std::int64_t kMaxRecordsPerUser = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxEvents = std::int64_t{1} << 20;

/// Entries of one array of the configuration text, checked before the TOML parser runs: toml11
/// (3.7) reads an array in time quadratic in its entries (seconds at 2^16), so the longest lists
/// (orders, tables, record_steps) share this limit, and the entries squared, summed over the
/// arrays of a file (an array counting the entries of the arrays nested in it), may not exceed two
/// such arrays (a table of alpha and R; a 256 x 256 Hessian is one): about 20 s of parsing at most.
inline constexpr std::int64_t kMaxArrayEntries = std::int64_t{1} << 16;
inline constexpr double kMaxArrayParseWork = 2.0 * 65536.0 * 65536.0;

/// output.record_steps entries: each is a record (a row of every dataset); a longer list than an
/// array may hold is better written as output.record_every.
inline constexpr std::int64_t kMaxRecordSteps = kMaxArrayEntries;

/// initial.alpha / initial.R entries: a tabulated curve, as the orders.
inline constexpr std::int64_t kMaxTableEntries = kMaxOrders;

/// grid.cells (and the finest grid of a convergence study): the finite-difference engine keeps
/// about 16 vectors of this length and its explicit time step shrinks with the cell width, so
/// work grows as cells^2; 2^22 cells are 512 MiB of vectors.
inline constexpr std::int64_t kMaxGridCells = std::int64_t{1} << 22;

/// grid.gamma_samples: points of each optimal-gamma snapshot, kept for every step; more samples
/// than cells add nothing.
inline constexpr std::int64_t kMaxGammaSamples = std::int64_t{1} << 16;

/// quadratic.hessian dimension d: its d^2 entries are one array of arrays for the TOML parser,
/// whose time is quadratic in them, so d^2 may be at most an array's entries (2^16); and every
/// step of the exact model decomposes d x d matrices (O(d^3)).
inline constexpr std::int64_t kMaxQuadraticDimension = 256;

/// algorithm.n: counts of records beyond 2^53 are not exact in a double.
inline constexpr double kMaxDatasetSize = 9007199254740992.0;  // 2^53

/// A sweep's range count, its points and points x orders x analyses: the surfaces are kept in
/// memory, 2^28 doubles (2 GiB) per array at the limit.
inline constexpr std::int64_t kMaxSweepValues = std::int64_t{1} << 28;

/// A configuration file: the longest legitimate lists (two arrays of 2^16 numbers) are a few MB.
inline constexpr std::int64_t kMaxConfigBytes = std::int64_t{64} << 20;

}  // namespace rdpdyn::limits

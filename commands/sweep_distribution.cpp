#include "commands/sweep_distribution.hpp"

#include <climits>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace rdpdyn {
namespace {

/// The values of the points a rank evaluated, as bytes: per point its index, delta, invalid
/// reason, then per surface R, epsilon, best order, reason and chosen analysis. Doubles travel as
/// their bytes, so rank 0 holds exactly what the evaluating rank computed.
class PointPacker {
 public:
  void number(double x) { append(&x, sizeof x); }
  void index(std::uint64_t i) { append(&i, sizeof i); }
  void text(const std::string& s) {
    index(s.size());
    append(s.data(), s.size());
  }
  void numbers(const double* x, std::size_t n) { append(x, n * sizeof(double)); }
  std::vector<char>& bytes() { return bytes_; }

 private:
  void append(const void* p, std::size_t n) {
    const auto* c = static_cast<const char*>(p);
    bytes_.insert(bytes_.end(), c, c + n);
  }
  std::vector<char> bytes_;
};

class PointUnpacker {
 public:
  PointUnpacker(const char* begin, const char* end) : at_(begin), end_(end) {}
  bool done() const { return at_ == end_; }
  double number() {
    double x;
    take(&x, sizeof x);
    return x;
  }
  std::uint64_t index() {
    std::uint64_t i;
    take(&i, sizeof i);
    return i;
  }
  std::string text() {
    std::string s(index(), '\0');
    take(s.data(), s.size());
    return s;
  }
  void numbers(double* x, std::size_t n) { take(x, n * sizeof(double)); }

 private:
  void take(void* p, std::size_t n) {
    if (static_cast<std::size_t>(end_ - at_) < n) throw std::runtime_error("sweep gather: truncated message");
    std::memcpy(p, at_, n);
    at_ += n;
  }
  const char* at_;
  const char* end_;
};

void pack_point(PointPacker& out, const SweepResult& r, std::size_t p) {
  const std::size_t K = r.orders.size();
  out.index(p);
  out.number(r.delta[p]);
  out.text(r.invalid[p]);
  for (const auto& s : r.surfaces) {
    out.numbers(s.R.data() + p * K, K);
    out.number(s.epsilon[p]);
    out.number(s.best_order[p]);
    out.text(s.conversion[p]);
    out.text(s.reason[p]);
    out.text(s.chosen.empty() ? std::string() : s.chosen[p]);
  }
}

void unpack_points(PointUnpacker in, SweepResult& r) {
  const std::size_t K = r.orders.size();
  while (!in.done()) {
    const std::size_t p = in.index();
    if (p >= r.computed.size()) throw std::runtime_error("sweep gather: point index out of range");
    r.computed[p] = 1;
    r.delta[p] = in.number();
    r.invalid[p] = in.text();
    for (auto& s : r.surfaces) {
      in.numbers(s.R.data() + p * K, K);
      s.epsilon[p] = in.number();
      s.best_order[p] = in.number();
      s.conversion[p] = in.text();
      s.reason[p] = in.text();
      std::string chosen = in.text();
      if (!s.chosen.empty()) s.chosen[p] = std::move(chosen);
    }
  }
}

void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("sweep: ") + what + " failed");
}

}  // namespace

SweepResult run_distributed_sweep(const SweepSpec& spec, std::span<const double> orders,
                                  const PointConfiguration& configure, const EngineRegistry& engines,
                                  std::span<const double> costs, MPI_Comm comm, const SweepProgress& progress) {
  int initialized = 0, size = 1, rank = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
  }
  std::vector<std::size_t> mine;
  if (size == 1) {
    mine.resize(spec.point_count());
    std::iota(mine.begin(), mine.end(), std::size_t{0});
    return run_sweep(spec, orders, configure, engines, mine, progress);
  }
  const std::vector<int> owner = balance_points(costs, size);
  for (std::size_t p = 0; p < owner.size(); ++p)
    if (owner[p] == rank) mine.push_back(p);
  SweepResult local = run_sweep(spec, orders, configure, engines, mine, rank == 0 ? progress : SweepProgress{});

  PointPacker packer;
  if (rank != 0)
    for (const std::size_t p : mine) pack_point(packer, local, p);
  if (packer.bytes().size() > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error("sweep: a rank's results exceed 2 GiB; split the sweep");
  int count = static_cast<int>(packer.bytes().size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  std::vector<char> all;
  if (rank == 0) {
    long long total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
      total += counts[static_cast<std::size_t>(r)];
    }
    if (total > INT_MAX) throw std::runtime_error("sweep: the gathered results exceed 2 GiB; split the sweep");
    all.resize(static_cast<std::size_t>(total));
  }
  check_mpi(
      MPI_Gatherv(packer.bytes().data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0, comm),
      "MPI_Gatherv");
  if (rank == 0) unpack_points(PointUnpacker(all.data(), all.data() + all.size()), local);
  return local;
}

}  // namespace rdpdyn

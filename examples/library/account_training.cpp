// Private mean estimation by noisy gradient descent, accounted step by step with rdpdyn's library
// (docs/library.md). The run is described in code, solved once before training (the bound depends
// on the schedule, not on the data), and its records are the ledger the training loop reads after
// each epoch: epsilon at delta so far, and a stop when the budget would be exceeded. At the end, any
// registered analysis of the run actually trained is evaluated by name.
//
//   account_training              the table
//   account_training --config     the run as TOML (what `rdpdyn solve` takes for the same run)
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include <rdpdyn/library/rdpdyn.hpp>

namespace {

constexpr int kRecords = 1000;        // n points in the unit disk
constexpr double kEta = 0.05;         // step size (< 1: the squared loss' condition)
constexpr double kSigma = 0.02;       // C21 noise: each step adds N(0, 2 eta sigma^2 I)
constexpr std::int64_t kSteps = 400;  // full-batch steps planned
constexpr std::int64_t kEpoch = 40;   // steps between two looks at the ledger
constexpr double kDelta = 1e-5;
constexpr double kBudget = 0.37;  // epsilon the training may spend
constexpr double kShownOrder = 8.0;

/// The run as rdpdyn sees it: C21's noisy GD on l(theta; x) = |theta - x|^2 / 2 (1-strongly convex,
/// 1-smooth), theta_0 = 0. Replacing one record x by x' changes the summed gradient by x - x', so
/// with |x| <= 1 the sensitivity S_g is 2.
rdpdyn::RunBuilder planned_run(std::int64_t steps) {
  rdpdyn::RunBuilder run;
  run.set("orders.values", std::vector<double>{2, 4, 8, 16, 32, 64})
      .set("algorithm.kind", "noisy-gd")
      .set("algorithm.loss", "squared")
      .set("algorithm.steps", steps)
      .set("algorithm.eta", kEta)
      .set("algorithm.sigma", kSigma)
      .set("algorithm.n", static_cast<double>(kRecords))
      .set("algorithm.sensitivity", 2.0)
      .set("lsi.kind", "recursion")  // the LSI constant tracked step by step (C21 Lemmas 8, 9)
      .set("output.record_every", kEpoch)
      .set("report.delta", kDelta);
  return run;
}

/// Keeps every record of the solve by step: the accountant's ledger.
class Ledger final : public rdpdyn::RecordObserver {
 public:
  void record(const rdpdyn::EngineRecord& row) override { rows[row.step].assign(row.R.begin(), row.R.end()); }
  std::map<std::int64_t, std::vector<double>> rows;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const rdpdyn::RunBuilder plan = planned_run(kSteps);
    if (argc > 1 && std::strcmp(argv[1], "--config") == 0) {
      std::fputs(plan.toml().c_str(), stdout);
      return 0;
    }
    const rdpdyn::RunConfig run = plan.build("account_training");
    const rdpdyn::Session session;
    Ledger ledger;
    session.solve(run, ledger);
    std::size_t shown = 0;
    while (run.spec.orders[shown] != kShownOrder) ++shown;

    // The data and the training loop: theta <- theta - (eta/n) sum_i (theta - x_i) + sqrt(2 eta) sigma N(0, I).
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> x, y;
    while (static_cast<int>(x.size()) < kRecords) {
      const double a = uniform(random), b = uniform(random);
      if (a * a + b * b <= 1.0) x.push_back(a), y.push_back(b);
    }
    double mean_x = 0.0, mean_y = 0.0;
    for (int i = 0; i < kRecords; ++i) mean_x += x[i] / kRecords, mean_y += y[i] / kRecords;

    std::printf("# rdpdyn %s: noisy GD mean estimation, n = %d, eta = %g, sigma = %g, delta = %g, budget %g\n",
                rdpdyn::kVersion, kRecords, kEta, kSigma, kDelta, kBudget);
    std::printf("%8s %14s %24s %24s %12s\n", "step", "|theta-mean|", "R(alpha=8)", "epsilon", "order");
    double tx = 0.0, ty = 0.0, released_x = 0.0, released_y = 0.0;  // theta, and the checkpoint
    std::int64_t trained = 0;
    for (std::int64_t step = 1; step <= kSteps; ++step) {
      const double noise = std::sqrt(2.0 * kEta) * kSigma;
      tx += -kEta * (tx - mean_x) + noise * normal(random);  // (1/n) sum_i (theta - x_i) = theta - mean
      ty += -kEta * (ty - mean_y) + noise * normal(random);
      if (step % kEpoch) continue;
      const std::vector<double>& R = ledger.rows.at(step);
      const rdpdyn::EpsilonAtOrder spent = session.epsilon(run, R, kDelta);
      if (spent.epsilon > kBudget) {
        std::printf(
            "# stop: epsilon %.6g after step %lld would exceed the budget; the model of step %lld is released\n",
            spent.epsilon, static_cast<long long>(step), static_cast<long long>(trained));
        break;
      }
      trained = step, released_x = tx, released_y = ty;
      std::printf("%8lld %14.6f %24.17g %24.17g %12.6g\n", static_cast<long long>(step),
                  std::hypot(tx - mean_x, ty - mean_y), R[shown], spent.epsilon, spent.order);
    }

    std::printf("# released: theta = (%.4f, %.4f) after %lld steps, mean (%.4f, %.4f)\n", released_x, released_y,
                static_cast<long long>(trained), mean_x, mean_y);

    // Every analysis of the released model (the run of `trained` steps) that the registry has, by name.
    const rdpdyn::RunConfig released = planned_run(kSteps).set("algorithm.steps", trained).build("account_training");
    for (const char* name : {"pdi", "chourasia-cor2", "bok-su-altschuler-full-batch", "composition-gaussian"}) {
      const rdpdyn::ComparisonEntry e = session.analyse(released, name);
      if (e.result.applies)
        std::printf("analysis %-30s %-9s epsilon %.17g\n", name, rdpdyn::status_name(e.status), e.epsilon);
      else
        std::printf("analysis %-30s does not apply: %s\n", name, e.result.reason.c_str());
    }
    return 0;
  } catch (const rdpdyn::SpecError& e) {
    std::fprintf(stderr, "account_training: %s\n", e.what());
    return 2;
  }
}

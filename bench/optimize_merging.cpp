// The optimizer on a merging workload: K terms exp(x + i/K) summed, the sum
// written twice (once as x + c, once as c + x), so that saturation merges
// the two copies term by term and extraction sees K shared subterms under
// two long chains. Prints, per K, the e-graph's size, the optimizer's
// phases (wall time), its CPU time and the process's peak RSS (each K in a
// fresh child process).
//
//   build/bench/bench_optimize_merging [K...]      (default 250 500 1000 2000 4000)
#include "ops/graph_parser.hpp"
#include "rules/pipeline/optimize.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace {

std::string merging_graph(int k) {
  std::string text = "(input x (f64 1000))\n";
  for (int copy = 0; copy < 2; ++copy) {
    for (int i = 0; i < k; ++i) {
      const std::string c = fmt::format("{:.17g}", static_cast<double>(i) / k);
      const std::string sum =
          copy == 0 ? fmt::format("(add x {})", c) : fmt::format("(add {} x)", c);
      if (i == 0) {
        text += fmt::format("(let s{}_0 (exp {}))\n", copy, sum);
      } else {
        text += fmt::format("(let s{}_{} (add s{}_{} (exp {})))\n", copy, i, copy, i - 1, sum);
      }
    }
  }
  text += fmt::format("(output (add s0_{} s1_{}))\n", k - 1, k - 1);
  return text;
}

// CPU time of this process: on a loaded machine wall times include the
// time other jobs held the core, CPU time does not.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void run(int k) {
  const eqsat::ops::Graph graph = eqsat::ops::parse_graph(merging_graph(k), "merging.eg", ".");
  const eqsat::rules::RuleProgram rules = eqsat::rules::load_default_rules();
  eqsat::rules::OptimizeReport report;
  const double cpu_before = cpu_seconds();
  eqsat::rules::optimize(graph, rules, &report);
  const double cpu = cpu_seconds() - cpu_before;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  fmt::print("{:>6} {:>8} {:>8} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.1f}\n", k,
             report.enodes, report.eclasses, report.load_seconds, report.rewrite_seconds,
             report.extract_seconds, report.total_seconds, cpu,
             static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> ks;
  for (int i = 1; i < argc; ++i) ks.push_back(std::atoi(argv[i]));
  if (ks.empty()) ks = {250, 500, 1000, 2000, 4000};
  fmt::print("{:>6} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "K", "e-nodes", "classes",
             "load s", "rewrite s", "extract s", "total s", "cpu s", "peak MiB");
  std::fflush(stdout);
  for (int k : ks) {
    // A child per K, so that each peak RSS is that K's alone.
    const pid_t child = fork();
    if (child == 0) {
      run(k);
      std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  return 0;
}

//===- IntegerProgram.h - Small 0-1 programs through GLPK -------*- C++ -*-===//
//
// dlc-rematerialize's exact decision (which forward segments to recompute)
// is a 0-1 integer program. It is solved by GLPK (Debian's libglpk40),
// opened at run time like the CUDA libraries so that the compiler starts
// without it; where it is missing, or finds no solution within its time
// limit, the caller falls back to its heuristic.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_INTEGERPROGRAM_H
#define DLC_PASSES_INTEGERPROGRAM_H

#include <string>
#include <vector>

namespace mlir::dlc {

/// minimize sum(cost[j] * x[j]) subject to, for every row i,
/// sum(a[i][j] * x[j]) <= upper[i] (or == upper[i] where `equal[i]`),
/// every x[j] in {0, 1} (or in [0, inf) where `continuous[j]`).
struct IntegerProgram {
  struct Term {
    int column;
    double coefficient;
  };
  std::vector<double> cost;
  std::vector<bool> continuous;
  std::vector<std::vector<Term>> rows;
  std::vector<double> upper;
  std::vector<bool> equal;

  int addColumn(double c, bool isContinuous = false) {
    cost.push_back(c);
    continuous.push_back(isContinuous);
    return int(cost.size()) - 1;
  }
  void addRow(std::vector<Term> terms, double bound, bool isEqual = false) {
    rows.push_back(std::move(terms));
    upper.push_back(bound);
    equal.push_back(isEqual);
  }
};

struct IntegerSolution {
  enum Status {
    /// Proven optimal (within a relative gap of 1e-4).
    Optimal,
    /// Feasible, not proven optimal (a limit ended the search).
    Feasible,
    /// No x satisfies the rows.
    Infeasible,
    /// No solution: the solver is missing, failed, or ran out of time
    /// before finding one (`why` says which).
    Unsolved,
  } status = Unsolved;
  std::vector<double> x;
  std::string why;
};

/// Solves `program` with GLPK's branch and cut, within `maxNodes`
/// subproblems (the same answer on any machine) and `seconds` (a
/// backstop: where it ends the search, the answer depends on the machine).
IntegerSolution solveIntegerProgram(const IntegerProgram &program,
                                    double seconds, long maxNodes);

} // namespace mlir::dlc

#endif // DLC_PASSES_INTEGERPROGRAM_H

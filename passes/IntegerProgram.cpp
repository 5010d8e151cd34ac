//===- IntegerProgram.cpp - Small 0-1 programs through GLPK ---------------===//
//
// GLPK through dlopen (IntegerProgram.h): the entry points used are looked
// up once; glpk.h gives their types and constants.
//
//===----------------------------------------------------------------------===//
#include "passes/IntegerProgram.h"

#include <glpk.h>

#include <cmath>
#include <dlfcn.h>
#include <mutex>

using namespace mlir::dlc;

namespace {

struct Glpk {
  decltype(&glp_create_prob) createProb = nullptr;
  decltype(&glp_delete_prob) deleteProb = nullptr;
  decltype(&glp_set_obj_dir) setObjDir = nullptr;
  decltype(&glp_add_rows) addRows = nullptr;
  decltype(&glp_add_cols) addCols = nullptr;
  decltype(&glp_set_row_bnds) setRowBnds = nullptr;
  decltype(&glp_set_col_bnds) setColBnds = nullptr;
  decltype(&glp_set_col_kind) setColKind = nullptr;
  decltype(&glp_set_obj_coef) setObjCoef = nullptr;
  decltype(&glp_load_matrix) loadMatrix = nullptr;
  decltype(&glp_init_iocp) initIocp = nullptr;
  decltype(&glp_intopt) intopt = nullptr;
  decltype(&glp_mip_status) mipStatus = nullptr;
  decltype(&glp_mip_col_val) mipColVal = nullptr;
  decltype(&glp_term_out) termOut = nullptr;
  decltype(&glp_ios_reason) iosReason = nullptr;
  decltype(&glp_ios_terminate) iosTerminate = nullptr;
  decltype(&glp_free_env) freeEnv = nullptr;
  std::string error;

  Glpk() {
    void *h = nullptr;
    for (const char *name : {"libglpk.so.40", "libglpk.so"})
      if ((h = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!h) {
      error = "GLPK (libglpk.so.40) not found";
      return;
    }
    bool ok = true;
    auto bind = [&](auto &slot, const char *symbol) {
      void *sym = ::dlsym(h, symbol);
      if (!sym) {
        if (ok)
          error = std::string("GLPK lacks ") + symbol;
        ok = false;
        return;
      }
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(sym);
    };
    bind(createProb, "glp_create_prob");
    bind(deleteProb, "glp_delete_prob");
    bind(setObjDir, "glp_set_obj_dir");
    bind(addRows, "glp_add_rows");
    bind(addCols, "glp_add_cols");
    bind(setRowBnds, "glp_set_row_bnds");
    bind(setColBnds, "glp_set_col_bnds");
    bind(setColKind, "glp_set_col_kind");
    bind(setObjCoef, "glp_set_obj_coef");
    bind(loadMatrix, "glp_load_matrix");
    bind(initIocp, "glp_init_iocp");
    bind(intopt, "glp_intopt");
    bind(mipStatus, "glp_mip_status");
    bind(mipColVal, "glp_mip_col_val");
    bind(termOut, "glp_term_out");
    bind(iosReason, "glp_ios_reason");
    bind(iosTerminate, "glp_ios_terminate");
    bind(freeEnv, "glp_free_env");
    if (!ok)
      createProb = nullptr;
  }
};

const Glpk &glpk() {
  static Glpk instance;
  return instance;
}

/// GLPK's environment is per thread in Debian's build, but its terminal
/// hook and a program's solve are not meant to interleave: one solve at a
/// time in this process.
std::mutex &solveMutex() {
  static std::mutex m;
  return m;
}

/// Counts the branch-and-bound subproblems GLPK selects and stops it after
/// `limit`: a limit of work, so that the same program gets the same answer
/// on a loaded machine (the time limit is the backstop).
struct NodeLimit {
  const Glpk *g;
  long limit;
  long nodes = 0;
  bool hit = false;
};

void countNodes(glp_tree *tree, void *info) {
  auto *state = static_cast<NodeLimit *>(info);
  if (state->g->iosReason(tree) == GLP_ISELECT &&
      ++state->nodes > state->limit) {
    state->hit = true;
    state->g->iosTerminate(tree);
  }
}

} // namespace

IntegerSolution mlir::dlc::solveIntegerProgram(const IntegerProgram &program,
                                               double seconds, long maxNodes) {
  IntegerSolution out;
  const Glpk &g = glpk();
  if (!g.createProb) {
    out.why = g.error;
    return out;
  }
  int m = int(program.rows.size()), n = int(program.cost.size());
  if (n == 0) {
    out.status = IntegerSolution::Optimal;
    return out;
  }
  std::lock_guard<std::mutex> lock(solveMutex());
  g.termOut(GLP_OFF);
  glp_prob *lp = g.createProb();
  g.setObjDir(lp, GLP_MIN);
  if (m > 0)
    g.addRows(lp, m);
  g.addCols(lp, n);
  // glp_load_matrix counts from 1; entry 0 is unused.
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  for (int i = 0; i < m; ++i) {
    double b = program.upper[i];
    g.setRowBnds(lp, i + 1, program.equal[i] ? GLP_FX : GLP_UP, b, b);
    for (const IntegerProgram::Term &t : program.rows[i]) {
      if (t.coefficient == 0)
        continue;
      ia.push_back(i + 1);
      ja.push_back(t.column + 1);
      ar.push_back(t.coefficient);
    }
  }
  for (int j = 0; j < n; ++j) {
    if (program.continuous[j]) {
      g.setColKind(lp, j + 1, GLP_CV);
      g.setColBnds(lp, j + 1, GLP_LO, 0, 0);
    } else {
      g.setColKind(lp, j + 1, GLP_BV);
    }
    g.setObjCoef(lp, j + 1, program.cost[j]);
  }
  g.loadMatrix(lp, int(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  glp_iocp parm;
  g.initIocp(&parm);
  parm.presolve = GLP_ON;
  // Cover and mixed-integer rounding cuts suit the knapsack-like rows; a
  // relative gap of 1e-4 counts as optimal. (GLPK's feasibility pump
  // does not heed the time limit.)
  parm.cov_cuts = GLP_ON;
  parm.mir_cuts = GLP_ON;
  parm.mip_gap = 1e-4;
  parm.msg_lev = GLP_MSG_OFF;
  parm.tm_lim = int(std::lround(std::max(seconds, 0.001) * 1000));
  NodeLimit nodes{&g, maxNodes};
  parm.cb_func = countNodes;
  parm.cb_info = &nodes;
  int rc = g.intopt(lp, &parm);
  int status = g.mipStatus(lp);
  if (status == GLP_OPT || status == GLP_FEAS) {
    // A search ended by the relative gap is optimal within it.
    out.status =
        status == GLP_OPT && (rc == 0 || rc == GLP_EMIPGAP) && !nodes.hit
            ? IntegerSolution::Optimal
            : IntegerSolution::Feasible;
    out.x.resize(n);
    for (int j = 0; j < n; ++j)
      out.x[j] = g.mipColVal(lp, j + 1);
  } else if (status == GLP_NOFEAS || rc == GLP_ENOPFS) {
    out.status = IntegerSolution::Infeasible;
  } else {
    out.why =
        rc == GLP_ETMLIM || rc == GLP_ESTOP
            ? "GLPK found no solution within its limits"
            : "GLPK failed (glp_intopt returned " + std::to_string(rc) + ")";
  }
  g.deleteProb(lp);
  // GLPK keeps an environment per thread until it is freed: nothing of it
  // outlives the solve (a leak checker sees none; the next solve makes it
  // again).
  g.freeEnv();
  return out;
}

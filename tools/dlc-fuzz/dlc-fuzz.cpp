//===- dlc-fuzz.cpp - Random-graph differential testing of dlc ------------===//
//
//   dlc-fuzz --seeds=N [--start=S] [--seconds=T] [--jobs=J]
//            [--keep-failures=DIR] [--shrink] [--no-cuda] [--verbose]
//   dlc-fuzz --print=SEED [--dlc-only]
//   dlc-fuzz --check=FILE [--input-seed=S]
//
// Each seed names a random program (Generator.h). The program is compiled
// with the full pipeline, without fusion and without in-place buffers, run
// on the sim device (and on the GPU when one is present), and every output
// is compared with the reference interpreter; the program is also printed
// in dlc only and its lowering must give the same reference results. Each
// seed is checked in a child process, so that a crash or a hang is reported
// as that seed's failure. `--shrink` reduces each failing program while it
// still fails the same way and prints the result.
//
//===----------------------------------------------------------------------===//
#include "tools/dlc-fuzz/Checker.h"
#include "tools/dlc-fuzz/Generator.h"

#include "runtime/Runtime.h"
#include "runtime/Sandbox.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <map>
#include <poll.h>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

using namespace dlc;
using namespace dlc::fuzz;
namespace cl = llvm::cl;

static cl::opt<uint64_t> numSeeds("seeds", cl::desc("Number of seeds to check"),
                                  cl::init(100));
static cl::opt<uint64_t> startSeed("start", cl::desc("First seed"),
                                   cl::init(0));
static cl::opt<double> seconds("seconds",
                               cl::desc("Start no new seed after this many "
                                        "seconds (0: no limit)"),
                               cl::init(0));
static cl::opt<int64_t> printSeed("print",
                                  cl::desc("Print the program of a seed and "
                                           "exit"),
                                  cl::init(-1));
static cl::opt<bool> dlcOnly("dlc-only",
                             cl::desc("With --print: every operation as dlc"),
                             cl::init(false));
static cl::opt<std::string>
    keepFailures("keep-failures",
                 cl::desc("Write failing programs to DIR/seed-S.mlir"),
                 cl::value_desc("DIR"), cl::init(""));
static cl::opt<unsigned> jobs("jobs", cl::desc("Seeds checked in parallel"),
                              cl::init(1));
static cl::opt<bool> shrink("shrink",
                            cl::desc("Minimize each failing program and print "
                                     "it"),
                            cl::init(false));
static cl::opt<unsigned> shrinkBudget("shrink-budget",
                                      cl::desc("Most checks spent minimizing "
                                               "one program"),
                                      cl::init(400));
static cl::opt<bool> noCuda("no-cuda",
                            cl::desc("Do not run on a GPU even if present"),
                            cl::init(false));
static cl::opt<bool> referenceOnly(
    "reference-only",
    cl::desc("Only lower and evaluate with the reference interpreter (checks "
             "the generator and the TOSA lowering, fast)"),
    cl::init(false));
static cl::opt<bool> gradients(
    "gradients",
    cl::desc("Check the gradient rules instead: each graph's f32 results, "
             "weighted and summed, differentiated with respect to its f32 "
             "arguments against central differences of the reference "
             "interpreter (graphs with an op without a rule are skipped)"),
    cl::init(false));
static cl::opt<bool> requireCuda("require-cuda",
                                 cl::desc("Print 'no CUDA GPU' and check "
                                          "nothing if no GPU is present"),
                                 cl::init(false));
static cl::opt<bool> verbose("verbose", cl::desc("Print a line for every seed"),
                             cl::init(false));
static cl::opt<unsigned> timeoutSeconds("timeout",
                                        cl::desc("Seconds one seed may take"),
                                        cl::init(600));
static cl::opt<std::string> checkFile("check",
                                      cl::desc("Check an MLIR file instead of "
                                               "generated programs"),
                                      cl::value_desc("FILE"), cl::init(""));
static cl::list<std::string>
    configNames("configs", cl::CommaSeparated,
                cl::desc("Compile configurations to check: full, no-fuse, "
                         "no-in-place, no-canonicalize, no-rewrites, tf32, "
                         "bf16, fp16, nchw, nhwc (default: all)"));
static cl::opt<bool> noFork("no-fork",
                            cl::desc("Check in this process (for debuggers; "
                                     "a crash ends the run)"),
                            cl::init(false));
static cl::opt<uint64_t> inputSeed("input-seed",
                                   cl::desc("With --check: seed of the random "
                                            "inputs"),
                                   cl::init(0));

static cl::opt<bool>
    injectError("inject-error",
                cl::desc("Corrupt an output element of every run (tests "
                         "that dlc-fuzz detects and reports a mismatch)"),
                cl::init(false), cl::Hidden);
static cl::opt<int> maxOps("max-ops",
                           cl::desc("Largest number of operations the "
                                    "generator aims at (default 25)"),
                           cl::init(25));

static GeneratorOptions generatorOptions() {
  GeneratorOptions options;
  options.maxOps = std::max(options.minOps, int(maxOps));
  return options;
}

//===----------------------------------------------------------------------===//
// Checks in child processes
//===----------------------------------------------------------------------===//

namespace {

/// A check running in a child process; its report comes through a pipe:
/// empty for a pass, else a serialized Failure.
/// In a child: the pipe to the parent. Progress records ("\x01what\n")
/// come first; the report follows a "\x02".
int reportFd = -1;

void writeAll(int fd, const std::string &text) {
  const char *data = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(fd, data, left);
    if (n <= 0) {
      if (n < 0 && errno == EINTR)
        continue;
      return;
    }
    data += n;
    left -= size_t(n);
  }
}

/// Tells the parent what the child is doing (no-op in the parent).
void reportProgress(const std::string &what) {
  if (reportFd >= 0)
    writeAll(reportFd, "\x01" + what + "\n");
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  uint64_t tag = 0;
  /// Everything read from the pipe.
  std::string report;
  std::chrono::steady_clock::time_point start;
};

using Clock = std::chrono::steady_clock;

Child startChild(uint64_t tag, const std::function<std::string()> &work) {
  if (noFork) {
    Child c;
    c.tag = tag;
    c.report = work();
    c.start = Clock::now();
    return c;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    perror("dlc-fuzz: pipe");
    exit(2);
  }
  fflush(stdout);
  fflush(stderr);
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = fork();
  if (pid < 0) {
    perror("dlc-fuzz: fork");
    exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    // What a check prints (a crashing pass's stack dump, the sim device's
    // warnings) would drown the report; --verbose or --no-fork show it.
    if (!verbose) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
      }
    }
    reportFd = fds[1];
    std::string report = work();
    writeAll(fds[1], "\x02" + report);
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  Child c;
  c.pid = pid;
  c.fd = fds[0];
  c.tag = tag;
  c.start = Clock::now();
  return c;
}

/// The failure of a finished child, or none; `c.fd` must be at end of file.
std::optional<Failure> finishChild(Child &c, bool timedOut) {
  if (c.pid < 0)
    return c.report.empty()
               ? std::nullopt
               : std::optional<Failure>(Failure::deserialize(c.report));
  close(c.fd);
  c.fd = -1;
  if (timedOut)
    kill(c.pid, SIGKILL);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  // The last progress record says where a crash or hang happened.
  std::string doing, report;
  bool finished = false;
  for (size_t pos = 0; pos < c.report.size();) {
    if (c.report[pos] == '\x02') {
      report = c.report.substr(pos + 1);
      finished = true;
      break;
    }
    size_t end = c.report.find('\n', pos);
    if (end == std::string::npos)
      break;
    doing = c.report.substr(pos + 1, end - pos - 1);
    pos = end + 1;
  }
  std::string where = doing.empty() ? "" : " during '" + doing + "'";
  // "compile sim no-fuse", "load cuda", "run sim": the configuration.
  std::string config = "-";
  for (const char *verb : {"compile ", "load ", "run "})
    if (doing.rfind(verb, 0) == 0 && doing != "run the reference")
      config = doing.substr(strlen(verb));
  if (timedOut)
    return Failure{"timeout", config,
                   "no result after " + std::to_string(timeoutSeconds) + " s" +
                       where};
  if (WIFSIGNALED(status))
    return Failure{"crash", config,
                   std::string("the check died of signal ") +
                       std::to_string(WTERMSIG(status)) + " (" +
                       strsignal(WTERMSIG(status)) + ")" + where};
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !finished)
    return Failure{"crash", config,
                   "the check exited with status " +
                       std::to_string(WEXITSTATUS(status)) + where};
  if (report.empty())
    return std::nullopt;
  return Failure::deserialize(report);
}

/// Runs `work` for each tag with at most `parallel` children at once and
/// calls `done` with each result in completion order. `more` says whether to
/// start another tag.
void runPool(const std::function<bool(uint64_t &tag)> &more,
             const std::function<std::string(uint64_t)> &work,
             const std::function<void(uint64_t, std::optional<Failure>)> &done,
             unsigned parallel) {
  std::vector<Child> running;
  bool exhausted = false;
  while (true) {
    while (!exhausted && running.size() < std::max(1u, parallel)) {
      uint64_t tag;
      if (!more(tag)) {
        exhausted = true;
        break;
      }
      running.push_back(startChild(tag, [&, tag] { return work(tag); }));
    }
    if (running.empty())
      return;
    if (noFork) {
      Child c = running.back();
      running.pop_back();
      done(c.tag, finishChild(c, false));
      continue;
    }
    std::vector<pollfd> fds;
    for (const Child &c : running)
      fds.push_back({c.fd, POLLIN, 0});
    int ready = poll(fds.data(), fds.size(), 200);
    if (ready < 0 && errno != EINTR) {
      perror("dlc-fuzz: poll");
      exit(2);
    }
    for (size_t i = running.size(); i-- > 0;) {
      Child &c = running[i];
      bool finished = false, timedOut = false;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[4096];
        ssize_t n = read(c.fd, buf, sizeof(buf));
        if (n > 0)
          c.report.append(buf, size_t(n));
        else if (n == 0 || errno != EINTR)
          finished = true;
      }
      if (!finished &&
          Clock::now() - c.start > std::chrono::seconds(timeoutSeconds)) {
        finished = true;
        timedOut = true;
      }
      if (!finished)
        continue;
      uint64_t tag = c.tag;
      std::optional<Failure> failure = finishChild(c, timedOut);
      running.erase(running.begin() + long(i));
      done(tag, std::move(failure));
    }
  }
}

/// Runs one check in a child process and waits for it.
std::optional<Failure> checkIsolated(const std::function<std::string()> &work) {
  std::optional<Failure> result;
  bool started = false;
  runPool(
      [&](uint64_t &tag) {
        if (started)
          return false;
        started = true;
        tag = 0;
        return true;
      },
      [&](uint64_t) { return work(); },
      [&](uint64_t, std::optional<Failure> f) { result = std::move(f); }, 1);
  return result;
}

/// The child's report: empty for a pass, a Failure of kind "note" for a
/// pass with outputs checked at their rounding sensitivity, else the failure.
std::string checkReport(const std::string &text, const std::string &dlcText,
                        uint64_t seed, const CheckOptions &options) {
  std::vector<std::string> notes;
  auto failure = checkProgramText(text, dlcText, seed, options, &notes);
  if (failure)
    return failure->serialize();
  if (notes.empty())
    return "";
  std::string joined;
  for (const std::string &n : notes)
    joined += (joined.empty() ? "" : "; ") + n;
  return Failure{"note", "-", joined}.serialize();
}

bool isPass(const std::optional<Failure> &f) { return !f || f->kind == "note"; }

/// Whether a GPU is present, asked in a child: the CUDA driver does not
/// survive fork(), so this process never initializes it.
bool probeCuda(std::string &why) {
  auto failure = checkIsolated([] {
    std::string reason;
    if (rt::cudaAvailable(&reason))
      return std::string();
    return Failure{"nocuda", "-", reason}.serialize();
  });
  if (failure)
    why = failure->message;
  return !failure;
}

//===----------------------------------------------------------------------===//
// Shrinking
//===----------------------------------------------------------------------===//

/// Replaces every use of `from` (operands and outputs) with `to`.
void replaceUses(Program &p, int from, int to) {
  for (Op &op : p.ops)
    for (int &o : op.operands)
      if (o == from)
        o = to;
  for (int &o : p.outputs)
    if (o == from)
      o = to;
}

/// Drops the arguments nothing uses.
void dropUnusedInputs(Program &p) {
  std::set<int> used(p.outputs.begin(), p.outputs.end());
  for (const Op &op : p.ops)
    used.insert(op.operands.begin(), op.operands.end());
  std::vector<int> kept;
  for (int v : p.inputs)
    if (used.count(v))
      kept.push_back(v);
  if (!kept.empty())
    p.inputs = kept;
}

void tidy(Program &p) {
  eliminateDeadOps(p);
  dropUnusedInputs(p);
}

/// Smaller variants of `p`, most promising first.
std::vector<Program> shrinkCandidates(const Program &p) {
  std::vector<Program> out;
  // Fewer outputs.
  if (p.outputs.size() > 1)
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      Program q = p;
      q.outputs.erase(q.outputs.begin() + long(i));
      tidy(q);
      out.push_back(std::move(q));
    }
  // An operation's result becomes an argument, cutting off what computes it
  // (earliest first: that removes the most).
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (p.ops[i].kind == OpKind::Constant)
      continue;
    Program q = p;
    int v = q.ops[i].result;
    q.ops.erase(q.ops.begin() + long(i));
    q.inputs.push_back(v);
    tidy(q);
    out.push_back(std::move(q));
  }
  // An operation is bypassed: its result replaced by an operand of its type.
  for (size_t i = p.ops.size(); i-- > 0;) {
    const Op &op = p.ops[i];
    for (int o : op.operands) {
      if (!(p.values[o].type == p.values[op.result].type))
        continue;
      Program q = p;
      replaceUses(q, op.result, o);
      tidy(q);
      out.push_back(std::move(q));
      break;
    }
  }
  // TOSA operations printed as dlc; constants as splats.
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (p.ops[i].tosa) {
      Program q = p;
      q.ops[i].tosa = false;
      out.push_back(std::move(q));
    }
    if (p.ops[i].kind == OpKind::Constant && p.ops[i].data.size() > 1) {
      Program q = p;
      q.ops[i].data.resize(1);
      out.push_back(std::move(q));
    }
  }
  return out;
}

/// Whether `failure` is the same kind of failure as `original`.
bool sameFailure(const std::optional<Failure> &failure,
                 const Failure &original) {
  return !isPass(failure) && failure->kind == original.kind &&
         failure->config == original.config;
}

CheckOptions optionsFor(const Failure &failure, bool cuda) {
  CheckOptions options;
  options.cuda = cuda;
  options.injectError = injectError;
  options.progress = reportProgress;
  // Only the failing configuration needs to run while shrinking.
  if (failure.config != "-")
    options.onlyConfigs = {failure.config};
  options.skipLowering = failure.kind != "lowering";
  return options;
}

Program shrinkProgram(Program p, const Failure &original, bool cuda) {
  CheckOptions options = optionsFor(original, cuda);
  unsigned checks = 0;
  bool progress = true;
  while (progress && checks < shrinkBudget) {
    progress = false;
    for (Program &q : shrinkCandidates(p)) {
      if (checks >= shrinkBudget)
        break;
      ++checks;
      std::string text = printProgram(q, Flavor::AsGenerated);
      std::string dlcText = printProgram(q, Flavor::DlcOnly);
      auto failure = checkIsolated(
          [&] { return checkReport(text, dlcText, q.seed, options); });
      if (sameFailure(failure, original)) {
        p = std::move(q);
        progress = true;
        break;
      }
    }
  }
  return p;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  return bool(out);
}

std::string commentBlock(const std::string &text) {
  std::string out = "// ";
  for (char c : text) {
    out += c;
    if (c == '\n')
      out += "// ";
  }
  return out + "\n";
}

/// The checker's options from the command line (--configs, --inject-error);
/// false after printing an unknown configuration's name.
bool checkOptions(bool cuda, CheckOptions &options) {
  options.cuda = cuda;
  options.injectError = injectError;
  options.progress = reportProgress;
  for (const std::string &name : configNames) {
    std::string suffix = name == "full" ? "" : " " + name;
    if (name != "full" && name != "no-fuse" && name != "no-in-place" &&
        name != "no-canonicalize" && name != "no-rewrites" && name != "tf32" &&
        name != "bf16" && name != "fp16" && name != "nchw" && name != "nhwc") {
      llvm::errs() << "dlc-fuzz: unknown configuration '" << name
                   << "' (full, no-fuse, no-in-place, no-canonicalize, "
                      "no-rewrites, tf32, bf16, fp16, nchw, nhwc)\n";
      return false;
    }
    options.onlyConfigs.push_back("sim" + suffix);
    if (cuda)
      options.onlyConfigs.push_back("cuda" + suffix);
  }
  return true;
}

int checkOneFile() {
  auto buffer = llvm::MemoryBuffer::getFile(checkFile);
  if (!buffer) {
    llvm::errs() << "dlc-fuzz: cannot read '" << checkFile
                 << "': " << buffer.getError().message() << "\n";
    return 2;
  }
  std::string text = (*buffer)->getBuffer().str();
  std::string why;
  bool cuda = !noCuda && probeCuda(why);
  CheckOptions options;
  if (!checkOptions(cuda, options))
    return 2;
  auto failure =
      checkIsolated([&] { return checkReport(text, "", inputSeed, options); });
  if (!isPass(failure)) {
    llvm::outs() << checkFile << ": FAILED " << failure->describe() << "\n";
    return 1;
  }
  llvm::outs() << checkFile << ": ok (sim" << (cuda ? ", cuda" : "") << ")\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "dlc-fuzz: random-graph differential testing\n");
  // The sim compiles each package's kernels at -O0 unless the user chose a
  // level: random programs are small, so compile time is most of a check.
  ::setenv("DLC_SIM_OPT_LEVEL", "0", /*overwrite=*/0);
  // Reference models are evaluated by children of a fork server made while
  // dlc-fuzz has one thread, before its jobs start (runtime/Sandbox.h).
  dlc::rt::startForkServer();
  if (printSeed >= 0) {
    Program p = generateProgram(uint64_t(printSeed), generatorOptions());
    llvm::outs() << printProgram(p, dlcOnly ? Flavor::DlcOnly
                                            : Flavor::AsGenerated);
    return 0;
  }
  if (!checkFile.empty())
    return checkOneFile();

  if (!keepFailures.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(keepFailures)) {
      llvm::errs() << "dlc-fuzz: cannot create '" << keepFailures
                   << "': " << ec.message() << "\n";
      return 2;
    }

  std::string why;
  bool cuda = !noCuda && probeCuda(why);
  if (requireCuda && !cuda) {
    llvm::outs() << "dlc-fuzz: no CUDA GPU (" << (noCuda ? "--no-cuda" : why)
                 << "), nothing checked\n";
    return 0;
  }
  CheckOptions options;
  if (!checkOptions(cuda, options))
    return 2;

  auto begin = Clock::now();
  uint64_t next = startSeed, end = startSeed + numSeeds;
  uint64_t passed = 0, totalOps = 0, widened = 0, notDifferentiable = 0;
  std::map<uint64_t, Failure> failures;
  runPool(
      [&](uint64_t &tag) {
        if (next >= end)
          return false;
        if (seconds > 0 &&
            std::chrono::duration<double>(Clock::now() - begin).count() >=
                seconds)
          return false;
        tag = next++;
        return true;
      },
      [&](uint64_t seed) {
        Program p = generateProgram(seed, generatorOptions());
        if (gradients) {
          std::vector<rt::TensorDesc> inputs;
          for (int v : p.inputs)
            inputs.push_back({p.values[v].type.dtype, p.values[v].type.shape});
          bool checked = false;
          auto failure = checkGradientsOf(printProgram(p, Flavor::AsGenerated),
                                          inputs, seed, checked);
          if (failure)
            return failure->serialize();
          // A passing result that says whether the graph was checked.
          return checked ? std::string()
                         : Failure{"skipped", "-", "an op has no gradient rule"}
                               .serialize();
        }
        if (referenceOnly) {
          std::vector<rt::TensorDesc> inputs;
          for (int v : p.inputs)
            inputs.push_back({p.values[v].type.dtype, p.values[v].type.shape});
          auto failure = checkReferenceOnly(
              printProgram(p, Flavor::AsGenerated),
              printProgram(p, Flavor::DlcOnly), inputs, seed);
          return failure ? failure->serialize() : std::string();
        }
        return checkReport(printProgram(p, Flavor::AsGenerated),
                           printProgram(p, Flavor::DlcOnly), seed, options);
      },
      [&](uint64_t seed, std::optional<Failure> failure) {
        totalOps += countOps(generateProgram(seed, generatorOptions()));
        if (failure && failure->kind == "skipped") {
          ++notDifferentiable;
          ++passed;
          return;
        }
        if (isPass(failure)) {
          ++passed;
          if (failure)
            ++widened;
          if (verbose)
            llvm::outs() << "seed " << seed << ": ok"
                         << (failure ? " (" + failure->message + ")" : "")
                         << "\n";
          llvm::outs().flush();
          return;
        }
        llvm::outs() << "seed " << seed << ": FAILED " << failure->describe()
                     << "\n";
        llvm::outs().flush();
        failures.emplace(seed, *failure);
      },
      jobs);

  // Failing programs are written (and minimized) after the run, in seed order.
  for (auto &[seed, failure] : failures) {
    Program p = generateProgram(seed, generatorOptions());
    std::string header =
        "// dlc-fuzz seed " + std::to_string(seed) + "; reproduce with: " +
        "dlc-fuzz --seeds=1 --start=" + std::to_string(seed) +
        (maxOps != 25 ? " --max-ops=" + std::to_string(maxOps) : "") + "\n" +
        commentBlock(failure.describe());
    if (!keepFailures.empty())
      writeFile(keepFailures + "/seed-" + std::to_string(seed) + ".mlir",
                header + printProgram(p, Flavor::AsGenerated));
    if (!shrink)
      continue;
    Program small = shrinkProgram(p, failure, cuda);
    std::string text = printProgram(small, Flavor::AsGenerated);
    llvm::outs() << "seed " << seed << ": minimized to " << countOps(small)
                 << " operations (from " << countOps(p)
                 << "), inputs from --input-seed=" << seed << ":\n"
                 << text;
    if (!keepFailures.empty())
      writeFile(keepFailures + "/seed-" + std::to_string(seed) + ".min.mlir",
                header + text);
  }

  uint64_t checked = passed + failures.size();
  double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  llvm::outs() << "dlc-fuzz: " << checked << " graphs (" << totalOps
               << " operations) from seed " << startSeed << ", checked "
               << (gradients       ? "for their gradients"
                   : referenceOnly ? "by the reference interpreter only"
                   : cuda          ? "on sim and cuda"
                                   : "on sim")
               << " in " << llvm::format("%.0f", elapsed) << " s\n";
  if (gradients)
    llvm::outs() << "dlc-fuzz: " << checked - notDifferentiable
                 << " graphs differentiated, " << notDifferentiable
                 << " not (an op without a gradient rule, a value rounded "
                    "to 16 bits, or no f32 result)\n";
  if (widened)
    llvm::outs() << "dlc-fuzz: " << widened
                 << " passing graphs have an output checked at its rounding "
                    "sensitivity (above the fixed tolerance)\n";
  llvm::outs() << "dlc-fuzz: " << passed << " passed, " << failures.size()
               << " failed\n";
  return failures.empty() ? 0 : 1;
}

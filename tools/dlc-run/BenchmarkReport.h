//===- BenchmarkReport.h - Benchmark results of dlc run and dlc-run -*- C++
//-*-//
//
// What `dlc run --benchmark` and `dlc-run --benchmark` print and write with
// --benchmark-json: the statistics of Session::benchmark's times, the bytes
// of the inputs and outputs, the device, and optionally the per-step profile
// (Session::profile). Header-only and standard C++ only, so that dlc-run
// links nothing but the runtime. bench/run.py reads the JSON; the field
// names are its interface.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TOOLS_DLCRUN_BENCHMARKREPORT_H
#define DLC_TOOLS_DLCRUN_BENCHMARKREPORT_H

#include "runtime/Runtime.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace dlc::tools {

struct BenchmarkReport {
  /// "dlc run" or "dlc-run".
  std::string tool;
  std::string packagePath;
  const rt::Package *package = nullptr;
  std::string device;
  rt::DeviceKind deviceKind = rt::DeviceKind::Sim;
  bool cudaGraph = false;
  unsigned warmup = 0;
  std::vector<double> times;
  /// The per-step profile and its number of runs, when one was taken.
  std::vector<rt::StepProfile> profile;
  unsigned profileRuns = 0;
};

inline std::string formatBytesForReport(uint64_t bytes) {
  char buf[64];
  if (bytes >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / (1ull << 30));
  else if (bytes >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1ull << 20));
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)bytes);
  return buf;
}

inline uint64_t totalBytes(const std::vector<rt::TensorDesc> &descs) {
  uint64_t total = 0;
  for (const rt::TensorDesc &d : descs)
    total += d.byteSize();
  return total;
}

/// How the runs were timed, in words and as the JSON's "timing" value.
inline const char *timingName(const BenchmarkReport &r) {
  return r.deviceKind == rt::DeviceKind::Cuda ? "cuda-events" : "steady-clock";
}

/// The human-readable summary (several lines, each ending in a newline).
inline std::string benchmarkText(const BenchmarkReport &r) {
  rt::BenchmarkStats s = rt::summarizeBenchmark(r.times);
  std::string how;
  if (r.deviceKind == rt::DeviceKind::Cuda)
    how = r.cudaGraph ? "CUDA Graph replays timed with CUDA events"
                      : "direct launches timed with CUDA events";
  else
    how = "timed with the host's steady clock";
  char buf[512];
  std::string out = "benchmark on " + r.device + ": " + std::to_string(s.runs) +
                    (s.runs == 1 ? " run" : " runs") + " after " +
                    std::to_string(r.warmup) + " warm-up" +
                    (r.warmup == 1 ? " run" : " runs") + ", " + how + "\n";
  std::snprintf(buf, sizeof buf,
                "  median %.4f ms, min %.4f ms, p10 %.4f ms, p90 %.4f ms "
                "(mean %.4f ms, max %.4f ms)\n",
                s.median, s.min, s.p10, s.p90, s.mean, s.max);
  out += buf;
  uint64_t in = totalBytes(r.package->inputs);
  uint64_t outBytes = totalBytes(r.package->outputs);
  out += "  inputs " + formatBytesForReport(in) + " (" +
         std::to_string(r.package->inputs.size()) + "), outputs " +
         formatBytesForReport(outBytes) + " (" +
         std::to_string(r.package->outputs.size()) + ")\n";
  return out;
}

inline std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += char(c);
      }
    }
  }
  return out + "\"";
}

/// A finite number, or null (JSON has no infinities or NaN).
inline std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

inline std::string tensorsJson(const std::vector<rt::TensorDesc> &descs,
                               const std::vector<std::string> &names) {
  std::string out = "[";
  for (size_t i = 0; i < descs.size(); ++i) {
    out += i ? ", " : "";
    out += "{\"name\": " + jsonString(i < names.size() ? names[i] : "") +
           ", \"dtype\": " + jsonString(rt::dtypeName(descs[i].dtype)) +
           ", \"shape\": [";
    for (size_t d = 0; d < descs[i].shape.size(); ++d)
      out += (d ? ", " : "") + std::to_string(descs[i].shape[d]);
    out += "], \"bytes\": " + std::to_string(descs[i].byteSize()) + "}";
  }
  return out + "]";
}

/// The JSON document of --benchmark-json.
inline std::string benchmarkJson(const BenchmarkReport &r) {
  rt::BenchmarkStats s = rt::summarizeBenchmark(r.times);
  const rt::Package &p = *r.package;
  unsigned kernels = 0, gemms = 0, copies = 0;
  for (const rt::Step &step : p.steps) {
    kernels += step.kind == rt::Step::Kind::Kernel;
    gemms += step.kind == rt::Step::Kind::Gemm;
    copies += step.kind == rt::Step::Kind::Copy;
  }
  std::string out = "{\n";
  auto field = [&](const std::string &name, const std::string &value) {
    out += "  " + jsonString(name) + ": " + value + ",\n";
  };
  field("tool", jsonString(r.tool));
  field("package", jsonString(r.packagePath));
  field("device", jsonString(r.device));
  field("device_kind", jsonString(rt::deviceKindName(r.deviceKind)));
  field("timing", jsonString(timingName(r)));
  field("cuda_graph", r.cudaGraph ? "true" : "false");
  field("warmup", std::to_string(r.warmup));
  field("iterations", std::to_string(s.runs));
  field("median_ms", jsonNumber(s.median));
  field("min_ms", jsonNumber(s.min));
  field("max_ms", jsonNumber(s.max));
  field("mean_ms", jsonNumber(s.mean));
  field("p10_ms", jsonNumber(s.p10));
  field("p90_ms", jsonNumber(s.p90));
  std::string times = "[";
  for (size_t i = 0; i < r.times.size(); ++i)
    times += (i ? ", " : "") + jsonNumber(r.times[i]);
  field("times_ms", times + "]");
  field("input_bytes", std::to_string(totalBytes(p.inputs)));
  field("output_bytes", std::to_string(totalBytes(p.outputs)));
  field("inputs", tensorsJson(p.inputs, p.inputNames));
  field("outputs", tensorsJson(p.outputs, p.outputNames));
  field("steps", "{\"kernels\": " + std::to_string(kernels) +
                     ", \"gemms\": " + std::to_string(gemms) +
                     ", \"copies\": " + std::to_string(copies) + "}");
  field("arena_bytes", std::to_string(p.arenaBytes));
  std::string profile = "null";
  if (!r.profile.empty()) {
    profile = "{\"runs\": " + std::to_string(r.profileRuns) + ", \"steps\": [";
    for (size_t i = 0; i < r.profile.size(); ++i) {
      const rt::StepProfile &st = r.profile[i];
      profile += std::string(i ? "," : "") +
                 "\n    {\"step\": " + std::to_string(st.step) +
                 ", \"kind\": " + jsonString(rt::stepKindName(st.kind)) +
                 ", \"label\": " + jsonString(st.label) +
                 ", \"ms\": " + jsonNumber(st.milliseconds) +
                 ", \"bytes\": " + std::to_string(st.bytes) +
                 ", \"flops\": " + jsonNumber(st.flops) +
                 ", \"share\": " + jsonNumber(st.share) + "}";
    }
    profile += "]}";
  }
  out += "  \"profile\": " + profile + "\n}\n";
  return out;
}

} // namespace dlc::tools

#endif // DLC_TOOLS_DLCRUN_BENCHMARKREPORT_H

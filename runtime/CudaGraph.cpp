//===- CudaGraph.cpp - Runs captured into a CUDA Graph and replayed -------===//
//
// Replaying a graph costs one launch instead of one per step. A graph bakes
// in the pointers of the run it captured, so it is captured again when a
// run's inputs or outputs move (runOnDevice on other buffers); the last two
// pointer sets' graphs are kept.
//
//===----------------------------------------------------------------------===//

#include "runtime/CudaDevice.h"

#include <algorithm>

namespace dlc::rt {

Status CudaGraph::execute(CudaContext &ctx, bool useGraph,
                          const std::vector<CUdeviceptr> &pointers,
                          const std::function<Status()> &enqueueSteps) {
  const CudaDriver *cu = ctx.cu;
  if (!useGraph || runs_ == 0) {
    DLC_RT_RETURN_IF_ERROR(enqueueSteps());
    ++runs_;
    return Status::ok();
  }
  if (size_t k = find(pointers); k < graphs_.size()) {
    // Most recently used last.
    std::rotate(graphs_.begin() + long(k), graphs_.begin() + long(k) + 1,
                graphs_.end());
  } else {
    if (graphs_.size() >= kMaxGraphs) {
      cu->cuGraphExecDestroy(graphs_.front().exec);
      graphs_.erase(graphs_.begin());
    }
    DLC_RT_RETURN_IF_ERROR(ctx.check(
        cu->cuStreamBeginCapture(ctx.stream, CU_STREAM_CAPTURE_MODE_RELAXED),
        "cuStreamBeginCapture"));
    Status enqueued = enqueueSteps();
    CUgraph graph = nullptr;
    CUresult ended = cu->cuStreamEndCapture(ctx.stream, &graph);
    if (!enqueued.isOk()) {
      if (graph)
        cu->cuGraphDestroy(graph);
      return enqueued;
    }
    DLC_RT_RETURN_IF_ERROR(ctx.check(ended, "cuStreamEndCapture"));
    Captured captured;
    CUresult r = cu->cuGraphInstantiate(&captured.exec, graph, 0);
    cu->cuGraphDestroy(graph);
    if (r != CUDA_SUCCESS)
      return ctx.check(r, "cuGraphInstantiate");
    captured.pointers = pointers;
    graphs_.push_back(std::move(captured));
  }
  DLC_RT_RETURN_IF_ERROR(ctx.check(
      cu->cuGraphLaunch(graphs_.back().exec, ctx.stream), "cuGraphLaunch"));
  ++runs_;
  return Status::ok();
}

size_t CudaGraph::find(const std::vector<CUdeviceptr> &pointers) const {
  size_t k = 0;
  while (k < graphs_.size() && graphs_[k].pointers != pointers)
    ++k;
  return k;
}

bool CudaGraph::pending(const std::vector<CUdeviceptr> &pointers) const {
  return runs_ == 0 || find(pointers) == graphs_.size();
}

void CudaGraph::release(const CudaDriver *cu) {
  for (Captured &c : graphs_)
    cu->cuGraphExecDestroy(c.exec);
  graphs_.clear();
}

} // namespace dlc::rt

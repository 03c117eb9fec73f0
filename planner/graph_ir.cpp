// build_mlp_model: an MLP's training graph (costmodel/op_graph.hpp) as a core
// Model with FLOPs and bytes filled in.
#include "planner/graph_ir.hpp"

#include "core/profile.hpp"
#include "planner/builders.hpp"

namespace brigade::planner {

Result<Model> build_mlp_model(const MlpSpec& spec, bool training, Optimizer optimizer) {
  BRIGADE_ASSIGN_OR_RETURN(Model fwd, mlp_forward_model(spec, training));
  BRIGADE_ASSIGN_OR_RETURN(TrainingGraph g, make_training_graph(fwd, training, optimizer));
  Model m;
  for (const IrTensor& t : g.tensors) {
    TensorSpec s;
    s.name = t.name;
    s.shape = t.shape;
    s.dtype = t.dtype;
    s.is_parameter = t.parameter;
    m.tensors.push_back(s);
  }
  std::vector<std::vector<std::int64_t>> shapes;
  for (const IrTensor& t : g.tensors) shapes.push_back(t.shape);
  const double traffic = optimizer_traffic_bytes_per_param(optimizer, false, spec.dtype);
  for (const IrOp& o : g.ops) {
    Op op;
    op.name = o.name;
    op.kind = o.op_kind;
    op.fn = o.fn;
    op.inputs = o.inputs;
    if (o.output >= 0) op.outputs = {o.output};
    const OpCost c = op_cost(g, o, shapes, traffic);
    op.flops = c.flops;
    op.bytes = c.bytes;
    op.phase = o.phase;
    m.ops.push_back(op);
  }
  return m;
}

}  // namespace brigade::planner

// The training graph of op-graph models (MLPs and explicit scenario graphs)
// for the planner. The graph (forward, reverse-mode backward, optimizer ops)
// and each op's work live in costmodel/op_graph.hpp, shared with the
// closed-form judge; the planner lowers them into tasks.
#pragma once

#include "costmodel/op_graph.hpp"
#include "planner/sharding.hpp"

namespace brigade::planner {

using cost::IrKind;
using cost::IrOp;
using cost::IrTensor;
using cost::make_training_graph;
using cost::mlp_forward_model;
using cost::op_cost;
using cost::OpCost;
using cost::TrainingGraph;

}  // namespace brigade::planner

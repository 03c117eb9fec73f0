// JAX-style sharding for the planner. The mesh, PartitionSpecs, propagation
// and resharding live in costmodel/sharding.hpp, shared with the closed-form
// judge (one description of which collectives a sharding implies); the
// planner lowers them into tasks.
#pragma once

#include "costmodel/sharding.hpp"

namespace brigade::planner {

using cost::EinsumRule;
using cost::local_shape;
using cost::Mesh;
using cost::PartitionSpec;
using cost::propagate_einsum;
using cost::Propagation;
using cost::reshard;
using cost::ReshardStep;
using cost::Sharded;
using cost::spec_string;

}  // namespace brigade::planner

// Where NVLS (NCCL's NVLink SHARP AllReduce, reduced in the NVSwitch) can
// run: the structure of a topology and the profiles' NCCL tables. Shared by
// check_plan (refusals at the scenario's key) and the NCCL model
// (costmodel/nccl_model.hpp).
#pragma once

#include <string>
#include <vector>

#include "core/profile.hpp"
#include "core/topology.hpp"

namespace brigade {

// The group's devices by node, nodes in order of first appearance, each
// node's devices in group order (the NCCL model's view of a group too).
std::vector<std::vector<int>> group_by_node(const Topology& topology, const std::vector<int>& group);

// Whether, on every node, the group's devices reach each other through one
// switch over NVLink alone (device -> NVSwitch -> device): what NVLS needs.
// False for a group with no two devices on one node.
bool on_nvswitch(const Topology& topology, const std::vector<int>& group);

// Why NVLS cannot run on `group` ("" when it can): no NVSwitch between its
// devices (naming two devices and what joins them), a device model whose
// profile's NCCL table has no nvls (Hopper or later), several nodes where a
// table has no nvls_tree or a node holds one device of the group (NCCL runs
// NVLS across nodes as NVLS-tree), the alpha-beta model. A phrase for "...; expected ...: PHRASE".
std::string nvls_refusal(const Topology& topology, const HardwareProfile& profile,
                         const std::vector<int>& group);

}  // namespace brigade

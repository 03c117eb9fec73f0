// Parameter and FLOP counts of GPT-style transformers (Megatron-LM:
// Narayanan et al. 2021, Eq. 2 and Eq. 3) and of MLPs. Counts, not times.
#pragma once

#include <cstdint>
#include <vector>

#include "core/scenario.hpp"

namespace brigade::cost {

// Parameters of one transformer layer with hidden size h and MLP width r h:
// attention 4h^2 + 4h (QKV and projection, with biases), MLP 2rh^2 + (r+1)h,
// two layernorms 4h. r = 4: 12h^2 + 13h.
double transformer_layer_parameters(double hidden, double ffn_ratio = 4.0);

// The same layer's parameters held by one of t tensor-parallel ranks
// (Megatron-LM's split, Shoeybi et al. 2019 §3): the weight matrices
// ((4 + 2r)h^2) and the column-parallel biases (QKV 3h, fc1 rh) are divided
// by t; the row-parallel biases (2h) and the layernorms (4h) are replicated.
double transformer_layer_parameters_per_rank(double hidden, double ffn_ratio, int tensor);

// Word and position embeddings: (V + s) h.
double embedding_parameters(double vocab, double seq, double hidden);
// Per tensor-parallel rank: the vocabulary-parallel word embedding V h / t
// plus the replicated position embedding s h.
double embedding_parameters_per_rank(double vocab, double seq, double hidden, int tensor);

// l layers + embeddings; with r = 4 this is Eq. 2,
//   P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)).
// The output layer shares the word embeddings; the final layernorm is not counted.
double transformer_parameters(double layers, double hidden, double vocab, double seq,
                              double ffn_ratio = 4.0);

// Forward FLOPs of one layer for B sequences of s tokens: the GEMMs QKV
// (6Bsh^2), attention scores (2Bs^2h), attention over values (2Bs^2h),
// projection (2Bsh^2), MLP (4rBsh^2). r = 4: 24Bsh^2 (1 + s/(6h)).
double transformer_layer_forward_flops(double batch, double seq, double hidden,
                                       double ffn_ratio = 4.0);
// Forward FLOPs of the scores and attention-over-values GEMMs alone (4Bs^2h):
// what selective recomputation recomputes.
double attention_core_forward_flops(double batch, double seq, double hidden);
// Forward FLOPs of the logit layer: 2BshV.
double logits_forward_flops(double batch, double seq, double hidden, double vocab);

// FLOPs of one training iteration over B sequences: backward = 2 x forward,
// plus the recomputed forward work; the logit layer is never recomputed.
//   none:      72 B s l h^2 (1 + s/(6h) + V/(12lh))   (model FLOPs)
//   full:      96 B s l h^2 (1 + s/(6h) + V/(16lh))   (Eq. 3)
//   selective: 72 B s l h^2 (1 + 2s/(9h) + V/(12lh))  (derived: + 4Bs^2h per layer)
double transformer_flops_per_iteration(double batch, double seq, double layers, double hidden,
                                       double vocab, Recompute recompute,
                                       double ffn_ratio = 4.0);

// ---- any transformer a TransformerSpec describes ---------------------------
// With d_h the head width (head_dim; hidden/heads when it is 0), d_q = heads
// x d_h (the query width: hidden unless head_dim says otherwise), d_kv =
// kv_heads x d_h (the key and value widths; d_q for MHA) and f the FFN width
// (ffn_width), per layer:
//   attention weights  2h d_q + 2 h d_kv          (Q and output h x d_q, K and V h x d_kv)
//   MLP weights        2hf (gelu) or 3hf (swiglu: gate, up, down)
//   biases (bias)      d_q + 2 d_kv + h (QKV, projection) + f + h (gelu) or 2f + h (swiglu);
//                      qkv_bias alone: d_q + 2 d_kv
//   norms              4h (layernorm: gain and bias, two of them) or 2h (rmsnorm);
//                      qk_norm adds 4 d_h (layernorm) or 2 d_h (rmsnorm)
// plus the word embedding Vh, the learned position embedding sh (not with
// rotary positions), and an untied output matrix Vh. The final norm is left
// out, as Eq. 2 leaves it out. With MHA, gelu, layernorm, learned, tied
// and biases these are the functions above.
double transformer_layer_parameters(const TransformerSpec& spec);
double transformer_parameters(const TransformerSpec& spec);
// Mixture of experts (spec.moe): a MoE layer's MLP is the router h x E
// (no bias), E routed experts and the shared ones, each an MLP of width
// moe.ffn_hidden of the layer's kind (with its biases when `bias`). Its
// active parameters count top_k routed experts instead of E. MLA
// (spec.mla) replaces the attention's weights by its projections
// (attention_weight_elements in model_size.cpp) plus its latents' RMSNorms.
// One layer of either kind (moe false: the dense MLP); active: top_k experts.
double transformer_layer_parameters(const TransformerSpec& spec, bool moe, bool active);
// Parameters a token passes through: the dense layers, the MoE layers with
// top_k routed experts, the embeddings (Mixtral 8x7B: 12.9B of 46.7B).
double transformer_active_parameters(const TransformerSpec& spec);
// Forward GEMM FLOPs of one layer for B sequences: 2Bs x (the layer's active
// weight elements: top_k routed and the shared experts and the router in a
// MoE layer) + the attention core 4Bs^2 d_q (per query head, whatever
// kv_heads; MLA: 2Bs^2 H (nope + rope + v)).
double transformer_layer_forward_flops(const TransformerSpec& spec, double batch, bool moe = false);
// Model FLOPs of one iteration over B sequences: 3 x forward in training
// (backward = 2 x forward), 1 x in inference; with the logits 2BshV.
double transformer_model_flops(const TransformerSpec& spec, double batch, bool training);
// Hardware FLOPs: the model's plus what is computed twice: full
// recomputation the layer's forward, selective the attention core (4Bs^2 d_q),
// FlashAttention's backward the scores (2Bs^2 d_q; with flash, selective has
// nothing to recompute); with a capacity factor c, the routed experts' GEMMs
// run on buffers padded to c x the routed tokens. `recomputed_fraction`:
// the share of the layers full recomputation repeats (block recomputation:
// recompute_num_layers of each chunk's layers; the layers alike). Op-level
// recomputation (Recompute::kOp) replays the 16-bit linears the policy does
// not keep, K, the output projection and the MLP's up (or, ungated, its
// down) projection, 2Bs (h d_kv + d_q h + h f) a layer; with `fp8_linears`
// (FP8 GEMMs are not aten.mm: the policy keeps none of them) every linear.
double transformer_hardware_flops(const TransformerSpec& spec, double batch, bool training,
                                  Recompute recompute, double recomputed_fraction = 1.0,
                                  bool fp8_linears = false);

// MLP with layer widths [in, hidden..., out]: sum of in x out weights (+ out biases).
double mlp_parameters(const std::vector<std::int64_t>& widths, bool bias);
// Forward FLOPs for `rows` rows: 2 rows in out per layer (+ rows out for the bias add).
double mlp_forward_flops(double rows, const std::vector<std::int64_t>& widths, bool bias);
// Backward FLOPs: twice the GEMMs' forward (input and weight gradients) + the
// bias gradient's sum over rows (rows out per layer).
double mlp_backward_flops(double rows, const std::vector<std::int64_t>& widths, bool bias);

}  // namespace brigade::cost

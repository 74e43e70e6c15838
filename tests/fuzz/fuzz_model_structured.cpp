// Structure-aware variant of fuzz_model.cpp: the same checks (it includes that file), plus a
// libFuzzer custom mutator that parses the input with oxir, changes the model the way a hostile
// producer would (operator swapped, attributes set to extreme or absurd values, initializers with
// huge or negative dims or wrong payload sizes, shape tensors with odd contents, dangling or
// self-referencing inputs, odd opset versions, subgraphs moved between nodes) and serializes it
// again. Raw byte mutations keep exercising the decoder; these reach deep into the inference rules,
// which byte flips rarely get to with a model still well-formed enough to reach them.
//
//   clang++ -std=c++20 -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//     tests/fuzz/fuzz_model_structured.cpp -o fuzz_model_structured
//   ./fuzz_model_structured -max_len=65536 -timeout=10 -malloc_limit_mb=1024 CORPUS_DIR SEED_DIR
#include "fuzz_model.cpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

const char* const kOps[] = {
    "Reshape", "Loop", "If", "Scan", "Resize", "Pad", "Slice", "Gather", "GatherND", "GatherElements",
    "Expand", "Tile", "Concat", "Split", "Squeeze", "Unsqueeze", "Transpose", "Flatten", "Shape", "Size",
    "ConstantOfShape", "Constant", "Range", "TopK", "OneHot", "Conv", "ConvTranspose", "MaxPool",
    "AveragePool", "Einsum", "MatMul", "Gemm", "ReduceSum", "ReduceMean", "ArgMax", "Cast", "CastLike",
    "Where", "Add", "DepthToSpace", "SpaceToDepth", "Compress", "NonZero", "Trilu", "ScatterND",
    "ScatterElements", "SequenceConstruct", "SequenceAt", "SplitToSequence", "ConcatFromSequence",
    "SequenceInsert", "Optional", "OptionalGetElement", "CenterCropPad", "Col2Im", "GridSample",
    "LayerNormalization", "GroupNormalization", "RNN", "LSTM", "GRU", "DFT", "STFT", "RoiAlign",
    "MaxUnpool", "QLinearConv", "DequantizeLinear", "QuantizeLinear", "Identity", "Unique", "BitShift",
    "ReverseSequence", "Mod", "Pow", "Softmax", "LpPool", "GlobalAveragePool", "Upsample", "ImageDecoder",
    "MelWeightMatrix", "Multinomial", "RandomNormalLike", "EyeLike", "TfIdfVectorizer", "StringSplit",
    "AffineGrid", "Max", "Min", "Equal", "GreaterOrEqual", "ThresholdedRelu", "Attention", "RotaryEmbedding", "TensorScatter", "Cumsum", "CumSum", "NegativeLogLikelihoodLoss",
    "SoftmaxCrossEntropyLoss", "Det", "BatchNormalization", "InstanceNormalization", "MaxRoiPool", "NonMaxSuppression",
    "LinearAttention", "CausalConvWithState", "IsInf", "HannWindow", "HammingWindow", "BlackmanWindow", "Round",
    "IsNaN", "Sign", "Neg", "Sub", "Mul", "Div", "Abs", "Less", "Not", "Xor", "Floor", "Ceil", "ReduceMax", "ReduceMin",
    // com.microsoft operators (their rules apply once the domain is switched, see below)
    "ExpandDims", "Inverse", "CDist", "FusedGemm", "MatMulBnb4", "QLinearWhere", "QLinearReduceMean", "MoE", "QMoE",
    "CropAndResize", "MaxpoolWithMask", "UnfoldTensor", "WordConvEmbedding", "MurmurHash3", "NGramRepeatBlock",
    "BiasSplitGelu", "GroupNorm", "SkipGroupNorm", "DecoderMaskedMultiHeadAttention", "GroupQueryAttention",
    "MatMulNBits", "MultiHeadAttention", "GatherBlockQuantized", "QLinearConcat"};
const char* const kAttrs[] = {"axis", "axes", "perm", "pads", "strides", "kernel_shape", "dilations", "keepdims",
                              "to", "shape", "allowzero", "group", "output_padding", "output_shape", "starts",
                              "ends", "split", "num_outputs", "k", "largest", "batch_dims", "equation", "mode",
                              "num_scan_inputs", "scan_input_axes", "scan_output_axes", "scan_input_directions",
                              "blocksize", "upper", "value", "then_branch", "else_branch", "body", "hidden_size",
                              "direction", "onesided", "inverse", "transA", "transB", "auto_pad", "ceil_mode",
                              "coordinate_transformation_mode", "antialias", "keep_aspect_ratio_policy",
                              "block_size", "output_dtype", "saturate", "dtype", "sample_size", "stash_type",
                              "scale", "q_num_heads", "kv_num_heads", "is_causal", "softcap", "qk_matmul_output_mode",
                              "rotary_embedding_dim", "num_heads", "interleaved", "epsilon", "exclusive", "reverse",
                              "center_point_box", "select_last_index", "sorted", "spatial_scale", "sampling_ratio",
                              "output_height", "output_width", "align_corners", "padding_mode", "frame_step",
                              "window_length", "output_datatype", "reduction", "ignore_index", "nearest_mode",
                              "exclude_outside", "extrapolation_value", "cubic_coeff_a", "layout", "fmod",
                              "linear_before_reset", "activations", "p", "size", "alpha", "beta", "bias", "lambd",
                              "detect_negative", "detect_positive", "n_targets", "post_transform", "classlabels_int64s",
                              "nodes_featureids", "depth", "ratio", "training_mode", "seed", "high", "low",
                              "mean", "sparse_value", "value_ints", "value_float", "value_floats", "value_int",
                              "axis_w", "output_shape", "blocksize", "channels_last", "keep_dims", "noop_with_empty_axes",
                              "border", "height_scale", "width_scale", "extra_shape", "input_as_shape",
                              "across_channels", "qkv_hidden_sizes", "bits", "K", "N", "gather_axis",
                              "quantize_axis", "channels_last", "past_present_share_buffer", "do_rotary", "step", "dim",
                              "positive", "ngram_size", "quant_type", "groups", "activation", "output_qk", "metric",
                              "q_num_heads", "kv_num_heads", "dilation", "channels_last", "state_window", "ndim"};

// Every operator the inference engine has a rule for (domain, op_type): operator swaps reach all
// of them, not only those listed above.
const std::vector<std::pair<std::string, std::string>>& registry_ops() {
  static const auto ops = [] {
    std::vector<std::pair<std::string, std::string>> v;
    oxir::infer::OpRegistry::standard().for_each(
        [&](std::string_view d, std::string_view o) { v.emplace_back(std::string(d), std::string(o)); });
    return v;
  }();
  return ops;
}

std::int64_t extreme(std::mt19937_64& rng) {
  static const std::int64_t v[] = {0, -1, -2, -7, 1, 2, 3, 4, 63, 64, 1 << 20, std::int64_t{1} << 31,
                                   std::int64_t{1} << 40, std::int64_t{1} << 62,
                                   std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(),
                                   std::numeric_limits<std::int64_t>::min() + 1, -(std::int64_t{1} << 40)};
  if (rng() % 4 == 0) return static_cast<std::int64_t>(rng() % 9) - 4;
  return v[rng() % std::size(v)];
}

void graphs_of(oxir::Graph& g, std::vector<oxir::Graph*>& out, int depth = 0) {
  out.push_back(&g);
  if (depth > 4) return;
  for (auto& n : g.nodes)
    for (auto& a : n.attributes) {
      if (auto* b = std::get_if<oxir::Box<oxir::Graph>>(&a.value); b && b->has_value())
        graphs_of(const_cast<oxir::Graph&>(**b), out, depth + 1);
      if (auto* v = std::get_if<std::vector<oxir::Graph>>(&a.value))
        for (auto& s : *v) graphs_of(s, out, depth + 1);
    }
}

std::string any_value_name(oxir::Graph& g, std::mt19937_64& rng) {
  std::vector<const std::string*> names;
  for (auto& v : g.inputs) names.push_back(&v.name);
  for (auto& t : g.initializers) names.push_back(&t.name);
  for (auto& n : g.nodes)
    for (auto& o : n.outputs) names.push_back(&o);
  if (names.empty()) return "x";
  return *names[rng() % names.size()];
}

oxir::Tensor int_tensor(std::string name, std::mt19937_64& rng) {
  const std::size_t n = rng() % 6;
  std::vector<std::int64_t> vals(n);
  for (auto& x : vals) x = extreme(rng);
  std::vector<std::int64_t> dims;
  if (rng() % 5 != 0) dims.push_back(static_cast<std::int64_t>(n));
  else if (n == 1) dims = {};  // scalar
  else dims.push_back(static_cast<std::int64_t>(n));
  auto t = oxir::Tensor::from_values<std::int64_t>(std::move(name), std::move(dims), std::span<const std::int64_t>(vals));
  if (rng() % 4 == 0) t.data_type = static_cast<oxir::DataType>(rng() % 27);
  return t;
}

void mutate(oxir::Model& m, std::mt19937_64& rng) {
  std::vector<oxir::Graph*> graphs;
  graphs_of(m.graph, graphs);
  oxir::Graph& g = *graphs[rng() % graphs.size()];
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  switch (rng() % 14) {
    case 0:  // swap the operator: one of the list above, or any operator with a rule (and its domain)
      if (!g.nodes.empty()) {
        auto& n = g.nodes[pick(g.nodes.size())];
        const auto& all = registry_ops();
        if (rng() % 2 || all.empty()) {
          n.op_type = kOps[pick(std::size(kOps))];
        } else {
          const auto& [d, o] = all[pick(all.size())];
          n.domain = d;
          n.op_type = o;
          if (!d.empty() && d != "ai.onnx" && !m.opset_version(d)) m.set_opset_version(d, 1 + static_cast<std::int64_t>(rng() % 5));
        }
      }
      break;
    case 1:  // extreme INT/INTS attribute values
      if (!g.nodes.empty()) {
        auto& n = g.nodes[pick(g.nodes.size())];
        for (auto& a : n.attributes) {
          if (rng() % 2) continue;
          if (a.kind() == oxir::AttributeType::INT) {
            a = oxir::Attribute(a.name, extreme(rng));
          } else if (a.kind() == oxir::AttributeType::INTS) {
            auto v = a.as_ints();
            if (!v.empty() && rng() % 2) v[pick(v.size())] = extreme(rng);
            else if (rng() % 2) v.push_back(extreme(rng));
            else if (!v.empty()) v.pop_back();
            a = oxir::Attribute(a.name, v);
          } else if (a.kind() == oxir::AttributeType::FLOAT) {
            const float f[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                               -1e30f, 1e30f, 0.0f, -1.0f};
            a = oxir::Attribute(a.name, f[pick(std::size(f))]);
          }
        }
      }
      break;
    case 2:  // add a well-known attribute with an odd value of an odd kind
      if (!g.nodes.empty()) {
        auto& n = g.nodes[pick(g.nodes.size())];
        std::string name = kAttrs[pick(std::size(kAttrs))];
        switch (rng() % 5) {
          case 0: n.set_attribute(oxir::Attribute(name, extreme(rng))); break;
          case 1: {
            std::vector<std::int64_t> v(rng() % 7);
            for (auto& x : v) x = extreme(rng);
            n.set_attribute(oxir::Attribute(name, v));
            break;
          }
          case 2: {
            const char* const strs[] = {"...", "ij,jk->ik", "", "linear", "NOTSET", "SAME_UPPER", "reflect", "wrap",
                                        "half_pixel", "tf_crop_and_resize", "cubic", "nearest", "max", "not_larger",
                                        "bilinear", "zeros", "border", "DCR", "CRD", "Tanh", "ai.onnx", "\xff\xfe"};
            if (rng() % 3 == 0) {
              const float f[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(), -1e30f, 1e30f, 0.0f, -0.5f, 0.5f, 2.0f};
              n.set_attribute(oxir::Attribute(name, f[pick(std::size(f))]));
            } else {
              n.set_attribute(oxir::Attribute(name, std::string(strs[pick(std::size(strs))])));
            }
            break;
          }
          case 3: n.set_attribute(oxir::Attribute(name, int_tensor("", rng))); break;
          case 4: {
            // a subgraph taken from elsewhere in the model (or the main graph)
            oxir::Graph sub = *graphs[pick(graphs.size())];
            n.set_attribute(oxir::Attribute(name, std::move(sub)));
            break;
          }
        }
      }
      break;
    case 3:  // a node input replaced by another value, "", a dangling name or its own output
      if (!g.nodes.empty()) {
        auto& n = g.nodes[pick(g.nodes.size())];
        std::string v;
        switch (rng() % 4) {
          case 0: v = any_value_name(g, rng); break;
          case 1: v = ""; break;
          case 2: v = "dangling"; break;
          case 3: v = n.outputs.empty() ? "" : n.outputs[0]; break;
        }
        if (n.inputs.empty() || rng() % 3 == 0) n.inputs.push_back(v);
        else n.inputs[pick(n.inputs.size())] = v;
      }
      break;
    case 4:  // a shape-like int64 initializer feeding a node input
      if (!g.nodes.empty()) {
        auto& n = g.nodes[pick(g.nodes.size())];
        const std::string name = "fz_init_" + std::to_string(rng() % 1000);
        g.initializers.push_back(int_tensor(name, rng));
        if (n.inputs.empty()) n.inputs.push_back(name);
        else n.inputs[pick(n.inputs.size())] = name;
      }
      break;
    case 5:  // initializer dims / type / payload made inconsistent
      if (!g.initializers.empty()) {
        auto& t = g.initializers[pick(g.initializers.size())];
        switch (rng() % 4) {
          case 0: if (!t.dims.empty()) t.dims[pick(t.dims.size())] = extreme(rng); break;
          case 1: t.dims.push_back(extreme(rng)); break;
          case 2: t.data_type = static_cast<oxir::DataType>(rng() % 27); break;
          case 3: t.dims.clear(); break;
        }
      }
      break;
    case 6:  // graph input / value_info dims made extreme, symbolic or removed
      if (!g.inputs.empty()) {
        auto& v = g.inputs[pick(g.inputs.size())];
        if (v.type)
          if (auto* t = std::get_if<oxir::TensorType>(&v.type->value)) {
            if (!t->shape) t->shape.emplace();
            auto& d = t->shape->dims;
            switch (rng() % 6) {
              case 0: if (!d.empty()) d[pick(d.size())] = oxir::Dim(extreme(rng)); break;
              case 1: if (!d.empty()) d[pick(d.size())] = oxir::Dim(std::string(rng() % 2 ? "N" : "M")); break;
              case 5:  // a dim_param written as an expression (read by parse_dim_expr)
                if (!d.empty()) {
                  static const char* const pieces[] = {"N", "M", "-N", "2*M", "N//0", "floor((N-1)/2)", "ceil(M/0)",
                                                       "9223372036854775807*N", "min(N,M,0)", "Max(N, -5)", "(N",
                                                       "N*N*N*N", "floor(N/M)", "-9223372036854775807", "1"};
                  std::string e = pieces[rng() % std::size(pieces)];
                  for (std::size_t k = rng() % 4; k > 0; --k) {
                    e += "+-*"[rng() % 3];
                    e += pieces[rng() % std::size(pieces)];
                  }
                  d[pick(d.size())] = oxir::Dim(std::move(e));
                }
                break;
              case 2: d.push_back(oxir::Dim(extreme(rng))); break;
              case 3: if (!d.empty()) d.pop_back(); break;
              case 4: t->elem_type = static_cast<oxir::DataType>(rng() % 27); break;
            }
          }
      }
      break;
    case 7:  // outputs dropped or added
      if (!g.nodes.empty()) {
        auto& n = g.nodes[pick(g.nodes.size())];
        if (rng() % 2 && !n.outputs.empty()) n.outputs.pop_back();
        else n.outputs.push_back(rng() % 2 ? "" : any_value_name(g, rng));
      }
      break;
    case 8:  // opset version changed
      if (!m.opset_imports.empty()) m.opset_imports[pick(m.opset_imports.size())].version = extreme(rng) % 30;
      else m.set_opset_version("", static_cast<std::int64_t>(rng() % 25));
      break;
    case 9:  // a node duplicated (same outputs: duplicate producers) or moved
      if (!g.nodes.empty()) {
        auto n = g.nodes[pick(g.nodes.size())];
        g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(pick(g.nodes.size() + 1)), std::move(n));
      }
      break;
    case 10:  // an attribute removed
      if (!g.nodes.empty()) {
        auto& n = g.nodes[pick(g.nodes.size())];
        if (!n.attributes.empty()) n.attributes.erase(n.attributes.begin() + static_cast<std::ptrdiff_t>(pick(n.attributes.size())));
      }
      break;
    case 11:  // initializer replaced by a Constant node (or vice versa: node output becomes a graph input)
      if (!g.initializers.empty()) {
        auto t = g.initializers[pick(g.initializers.size())];
        oxir::Node c("Constant", {}, {t.name});
        c.set_attribute(oxir::Attribute("value", std::move(t)));
        g.nodes.insert(g.nodes.begin(), std::move(c));
      }
      break;
    case 12:  // graph output made to name something else
      if (!g.outputs.empty()) g.outputs[pick(g.outputs.size())].name = any_value_name(g, rng);
      break;
    case 13:  // a function-local or unknown domain
      if (!g.nodes.empty()) g.nodes[pick(g.nodes.size())].domain = rng() % 2 ? "ai.onnx.ml" : "com.microsoft";
      break;
  }
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (rng() % 3 == 0) return LLVMFuzzerMutate(data, size, max_size);
  oxir::Model m;
  try {
    m = oxir::parse_model(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size));
  } catch (const std::exception&) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  try {
    const int rounds = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < rounds; ++i) mutate(m, rng);
    const auto out = oxir::serialize_model(m);
    if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memcpy(data, out.data(), out.size());
    return out.size();
  } catch (const std::exception&) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
}

// Corpus files the linter must refuse to load: a post-processor wrote an invalid graph. The
// loader's message and exit 2 are the report (a malformed file is never linted as if it were
// whole); the corpus tests check the refusal and score it as an error on a breaking file, and the
// other corpus tests skip these files.
#ifndef SHAPELINT_TESTS_CORPUS_INVALID_MODELS_H_
#define SHAPELINT_TESTS_CORPUS_INVALID_MODELS_H_

#include <string>

namespace shapelint::lint {

// What the loader's message must say of each, or nullptr for a file it must load.
// onnxslim on optimum's merged LongT5 decoder: a node of the If's branch reads a value that no
// node, input or initializer provides after its pass (ONNX Runtime refuses the file too:
// INVALID_GRAPH, at every size; tests/corpus/pipes' labels).
inline const char* RefusedAsInvalid(const std::string& corpus, const std::string& file) {
  if (corpus == "pipes" && file == "optimum_longt5.decoder_model_merged.slim.onnx") {
    return "reads '/decoder/Shape_8_output_0', which no node, graph input or initializer provides";
  }
  return nullptr;
}

}  // namespace shapelint::lint

#endif  // SHAPELINT_TESTS_CORPUS_INVALID_MODELS_H_

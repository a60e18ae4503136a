// What evaluating expressions cost on this thread, counted: tests state how that work grows with
// a model (linearly) without timing it, which a loaded machine would make flaky.
#ifndef SHAPELINT_SYM_EVAL_WORK_H_
#define SHAPELINT_SYM_EVAL_WORK_H_

#include <cstdint>

namespace shapelint::sym {

struct EvalWork {
  int64_t evaluations = 0;      // expressions evaluated (Evaluator calls, Expr::Evaluate)
  int64_t lookups_by_name = 0;  // symbols whose value a Binding found by hashing the name
};

// The counts so far on this thread; the difference of two readings is the work between them.
EvalWork EvalWorkSoFar();

}  // namespace shapelint::sym

#endif  // SHAPELINT_SYM_EVAL_WORK_H_

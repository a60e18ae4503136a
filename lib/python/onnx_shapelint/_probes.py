"""The sizes near the export sizes the dynamic check runs on both sides (confirm.dynamic_check).

A size baked by a Python branch shows only where the branch would go the other way, and the
conditions such branches test are few: a size against a constant (`if h >= 8`, `if T > 1`), a
residue (`if w % 2`), one size against another (`if h > w`). So the probes move every size up and
down together, which keeps relations among them, and then each size alone: by an odd and by an
even step, past the nearest other size of its input, and to 1, which crosses those conditions
near the export sizes; a constant further off (a pad only where both sides are below 16,
exported at 8 x 10) is crossed by every size doubled. A branch on a size the graph computes
with a floor (a feature map after a stride-4 convolution: Swin shifts its windows only where
the map is larger than the window) is crossed only where that size changes, which a step of 1
or 2 never reaches: each size alone also steps to where the graph's own sizes change
(_core.size_steps). Every probe is where the static analysis finds that the model works: what
it finds failing is already a finding, which its own counterexample settles.
"""

import math

from onnx_shapelint import _core

# How many sizes near the export sizes the dynamic check runs at most (the sizes scaled by SCALE
# come in addition), and the steps of the moves of every size together, tried in order until
# two work (a size halved with floor division by the graph gives the same literal one step on).
PROBE_COUNT = 16
TOGETHER = 2
PROBE_STEPS = (1, 2, 3, 5, 8, 16, 32, 64)
DOWN_STEPS = (-1,)
ALONE_STEPS = (1, -1, 2)
# Then every export size multiplied by SCALE (those a witness holds at one size stay): a branch
# on a size against a constant far from the example (maps taller than 32 rows, both sides below
# 16, a stride of round(T / 16) at T = 12) is crossed by no step near the export sizes, and
# scaling keeps every ratio, sum and divisibility among them that moving one size breaks.
SCALE = 2
# How far a size steps to where the graph's own sizes change, and how many such steps each way.
SIZE_STEP_MAX = 64
SIZE_STEP_COUNT = 3
# A probe runs only where its inputs hold at most this many elements, or at most GROWTH times
# the export's: a batch moved past a height of 224 would ask both runtimes for much more.
ELEMENTS = 1 << 24
GROWTH = 4


def spec(binding):
    return ",".join("%s=%d" % kv for kv in sorted(binding.items()))


def probe_sizes(model, centre, ranges, findings=(), count=PROBE_COUNT):
    """Up to `count` bindings near `centre` ({symbol: export size}) where the static analysis
    finds that the model works: within torch.export's recorded ranges and every finding's
    witness, and where no node fails nor an output leaves its declaration; moves of every
    symbol keep the relations among the export sizes that moved_binding keeps. Every size
    scaled by SCALE comes in addition, third. [(binding, inputs)]"""
    if not centre:
        return []
    limits = dict(ranges)
    for f in findings:
        for r in (f.get("witness") or {}).get("ranges") or []:
            low, high = limits.get(r["symbol"], (None, None))
            if r.get("every"):  # a window that repeats (every even size) bounds nothing above
                limits[r["symbol"]] = (_tighter(low, r.get("congruent_from"), max), high)
                continue
            limits[r["symbol"]] = (_tighter(low, r["min"], max), _tighter(high, r["max"], min))
    inputs = [[d for d in dims if d in centre] for dims in input_symbols(model).values()]
    together = [moved_binding(centre, step, limits, inputs) for step in PROBE_STEPS]
    scaled = {s: size * SCALE if _within(limits.get(s), size * SCALE) else size
              for s, size in centre.items()}
    others = [scaled] + [moved_binding(centre, step, limits, inputs) for step in DOWN_STEPS]
    others += alone_bindings(centre, inputs, limits, size_steps(model, centre))
    candidates = []
    for binding in together + others:
        if binding != centre and binding not in candidates:
            candidates.append(binding)
    if not candidates:
        return []
    results = _core.probe(model, [spec(centre)] + [spec(b) for b in candidates])
    budget = max(ELEMENTS, GROWTH * _elements(results[0]["at"]["inputs"]))
    found, near, moved_together = [], 0, 0
    for binding, result in zip(candidates, results[1:]):
        is_scaled = binding == scaled
        is_together = binding in together and not is_scaled
        if result["breaks"] or near >= count and not is_scaled or _empty(result["at"]) or \
                _elements(result["at"]["inputs"]) > budget or \
                is_together and moved_together >= TOGETHER:
            continue
        moved_together += is_together
        near += not is_scaled
        found.append((binding, result["at"]["inputs"]))
    return found


def moved_binding(centre, step, limits=None, inputs=()):
    """`centre` ({symbol: export size}) moved by `step` (a number for every symbol, or {symbol:
    step} with 0 for the others), keeping the relations among the sizes that hold at the export,
    which the inputs of a model often state (a mask as long as the past and the new tokens
    together): symbols of equal sizes move alike, and a symbol whose export size is the sum of
    two other symbols' is moved to the sum of their moved sizes. Symbols are placed in ascending
    export size, so the summands are placed first. Of several pairs, the one whose smaller
    summand is the largest (past 5 + seq 3 for a mask of 8, not batch 2 + a 6): small sizes
    such as a batch of 2 are those that add up by chance. A sum that is such a coincidence
    (batch 2 + seq 3 = past 5) only moves that size further, by the sum of the summands' steps,
    and every sum it takes part in is built from its moved size, so still holds (the mask stays
    past + seq). A sum within one input (`inputs`, the symbols of each: a width of 10 = a batch
    of 2 + a height of 8) is no relation: an input's axes are independent of each other. A
    symbol that cannot move that far (a witness of one size, `limits` {symbol: (low, high)}),
    or would go below 1, stays at its export size."""
    limits = limits or {}
    binding = {}
    for symbol in sorted(centre, key=lambda s: (centre[s], s)):
        size = centre[symbol]
        pair = _summands(size, binding, centre, _apart_from(symbol, inputs))
        own = step.get(symbol, 0) if isinstance(step, dict) else step
        target = binding[pair[0]] + binding[pair[1]] if pair else size + own
        binding[symbol] = target if target >= 1 and _within(limits.get(symbol), target) else size
    return binding


def alone_bindings(centre, inputs, limits, steps=None):
    """Each symbol moved without the others of its input: by one step up, then to the first
    sizes above and below where the graph's own sizes change (`steps`, {symbol: (up, down)} as
    size_steps gives them), then just past the nearest other size of its input above and below
    (a height above a width, or below it), then to 1 (a fast path for one item or one frame, a
    broadcast), then one step down, then by ALONE_STEPS' others and the further steps of
    `steps`; each round over every symbol before the next. A
    symbol of another input with the same export size moves with it: two inputs that share a
    size (the batch of the tokens and of their mask) are meant to. A symbol that is a sum of two
    others is not moved alone but follows its summands (moved_binding): the inputs may state
    the sum."""
    together = peers(centre, inputs)
    movable = [s for s in _in_input_order(inputs, centre)
               if not _summands(centre[s], [t for t in centre if t != s], centre,
                                _apart_from(s, inputs))]

    def crossing(s, side):
        # Below a size of 2 (a batch) is 1: no comparison of like sizes, and what a size
        # divides becomes empty there.
        sizes = [centre[t] for syms in inputs if s in syms for t in syms
                 if (centre[t] - centre[s]) * side > 0 and centre[t] + side >= 2]
        return [min(sizes, key=lambda v: abs(v - centre[s])) + side] if sizes else []

    steps = steps or {}

    def changes(s, first):
        # Steps the other rounds make anyway (ALONE_STEPS) are left to them, in their order.
        up, down = steps.get(s, ((), ()))
        pick = (lambda k: k[:1]) if first else (lambda k: k[1:])
        moves = list(pick(up)) + [-k for k in pick(down)]
        return [centre[s] + k for k in moves if k not in ALONE_STEPS]

    rounds = [lambda s: [centre[s] + ALONE_STEPS[0]], lambda s: changes(s, True),
              lambda s: crossing(s, 1), lambda s: crossing(s, -1), lambda s: [1],
              lambda s: [centre[s] + ALONE_STEPS[1]],
              lambda s: [centre[s] + step for step in ALONE_STEPS[2:]] + changes(s, False)]
    out = []
    for targets_of in rounds:
        for s in movable:
            for target in targets_of(s):
                if target >= 1 and _within(limits.get(s), target):
                    step = target - centre[s]
                    group = together[s] | {s}
                    binding = moved_binding(centre, {t: step for t in group}, limits, inputs)
                    # All of the group or none: the mask's length without the tokens' is
                    # inputs that mean nothing.
                    if all(binding[t] == target for t in group):
                        out.append(binding)
    return out


def peers(centre, inputs):
    """{symbol: the symbols that move with it}: those of other inputs (`inputs`, the symbols
    of each) with its size in `centre`. Two inputs that share a size at the export (the batch
    of the tokens and of their mask) are meant to; an exporter that names each input's axes
    apart (TorchScript's dynamic_axes) does not say so."""
    return {s: {t for t in centre if t != s and centre[t] == centre[s] and
                not any(s in syms and t in syms for syms in inputs)} for s in centre}


def aligned_peers(centre, dims):
    """{symbol: the symbols that move with it in a counterexample}: those of other inputs with
    its size in `centre` on the same axis, counted from the front or from the back (`dims`,
    {input: its dims in order}), the rule of the linter's own counterexamples
    (GraphEvaluator::PeersOf). Those move only the peers among the sizes a finding names, and
    none of a size that more than 64 symbols share; a limit's run moves every peer. Narrower
    than `peers`: a limit's run shows one break, and a batch of 2 that happens to equal 2 key
    heads moved with them shows what PyTorch refuses."""
    places = {}
    for name, ds in dims.items():
        for i, d in enumerate(ds):
            if isinstance(d, str) and d in centre:
                places.setdefault(d, []).append((name, i, len(ds) - i))
    return {s: {t for t, at in places.items()
                if t != s and centre[t] == centre[s]
                and all(p[0] != q[0] for p in at for q in own)
                and any(p[1] == q[1] or p[2] == q[2] for p in at for q in own)}
            for s, own in places.items()}


def input_dims(model):
    """{input name: its dims in order, numbers and symbols}; {} where the file cannot be read."""
    try:
        return {i["name"]: list(i["dims"] or []) for i in _core.inputs(model)}
    except (ValueError, OSError):
        return {}


def size_steps(model, centre):
    """{symbol: (up, down)}: the steps from `centre` at which the graph's own sizes change
    (_core.size_steps); {} where the file cannot be read."""
    try:
        found = _core.size_steps(model, spec(centre), SIZE_STEP_MAX, SIZE_STEP_COUNT)
    except (ValueError, OSError):
        return {}
    return {s["symbol"]: (s["up"], s["down"]) for s in found if s["symbol"] in centre}


def input_symbols(model):
    """{input name: its symbolic dims in order}; {} where the file cannot be read."""
    return {name: [d for d in dims if isinstance(d, str)]
            for name, dims in input_dims(model).items()}


def _in_input_order(inputs, centre):
    seen = []
    for syms in inputs:
        seen += [s for s in syms if s not in seen]
    return seen + sorted(s for s in centre if s not in seen)


def _empty(at):
    """Whether an output has no elements at a probe: a run there compares nothing but how
    each runtime treats empty tensors (ONNX Runtime returns 0 for a mean over nothing, PyTorch
    NaN)."""
    return any(0 in (o.get("actual") or []) for o in at.get("outputs") or [])


def _elements(shapes):
    return sum(math.prod(dims) for dims in shapes.values())


def _apart_from(symbol, inputs):
    """Whether a symbol is in no input with `symbol`."""
    return lambda other: not any(symbol in syms and other in syms for syms in inputs)


def _summands(size, placed, centre, apart=lambda s: True):
    """Two distinct placed symbols (each `apart`) whose export sizes add up to `size`, the
    smaller summand as large as it can be; None when there are none."""
    placed = [s for s in placed if apart(s)]
    for smaller in sorted(placed, key=lambda s: (-centre[s], s)):
        rest = size - centre[smaller]
        larger = next((s for s in sorted(placed) if s != smaller and centre[s] == rest), None)
        if larger is not None and rest >= centre[smaller]:
            return larger, smaller
    return None


def _tighter(bound, other, pick):
    return other if bound is None else bound if other is None else pick(bound, other)


def _within(bounds, value):
    if bounds is None:
        return True
    low, high = bounds
    return (low is None or value >= low) and (high is None or value <= high)

// ort_single_thread.cjs - preload for run_ort.mjs: every onnxruntime-node
// InferenceSession gets intraOpNumThreads = interOpNumThreads = 1.
//
//     node --require tools/models/ort_single_thread.cjs tools/models/run_ort.mjs MODEL.onnx 'x=...'
//
// export_corpus.py runs ONNX Runtime this way so that its ground truth does not
// depend on the machine's core count (and leaves the other cores alone).
'use strict';
const Module = require('node:module');

const patched = new WeakSet();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const exported = load.apply(this, arguments);
  const cls = exported && exported.InferenceSession;
  if (cls && typeof cls.create === 'function' && !patched.has(cls)) {
    patched.add(cls);
    const create = cls.create;
    cls.create = function (arg0, ...rest) {
      // create(path | buffer, [options]) or create(buffer, offset, length, [options])
      const i = typeof arg0 === 'string' ? 0 : arg0 instanceof ArrayBuffer && typeof rest[0] === 'number' ? 2 : 0;
      rest[i] = Object.assign({}, rest[i], { intraOpNumThreads: 1, interOpNumThreads: 1 });
      return create.call(this, arg0, ...rest);
    };
  }
  return exported;
};

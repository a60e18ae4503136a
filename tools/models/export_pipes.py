#!/usr/bin/env python3
"""Export the held-out pipeline corpus (tests/corpus/pipes) and label it by running it.

tests/corpus/third holds optimum-onnx's main_export on a dozen transformers architectures; this
corpus takes OTHER architectures through the same pipeline, to measure the linter on exports of
models it was never looked at with:

  optimum   optimum-onnx's main_export (what `optimum-cli export onnx` runs) on tiny transformers
            models with random weights, saved with save_pretrained to a scratch directory and
            exported from there, with the task optimum uses for each: image classification
            (Swin, MobileViT, LeViT, ConvNeXt, PoolFormer, MobileNetV2, ResNet, RegNet,
            EfficientNet, BEiT, DeiT, DINOv2, CvT, PVT), dense prediction
            (SegFormer semantic segmentation, DPT and GLPN depth estimation), object detection
            (Table Transformer), audio (HuBERT, SEW, UniSpeech CTC; WavLM, Data2Vec-Audio, AST
            audio classification), text encoders (ALBERT, DeBERTa-v2, ELECTRA, MobileBERT
            fill-mask; XLM-RoBERTa feature extraction), decoders with past key values (GPT-Neo,
            Phi, Mistral, Gemma) and encoder-decoders with past (mBART, Pegasus, LongT5: every
            file the export writes, the merged decoder included). Files:
            optimum_<stem>[_past].<file>.onnx.
  slim      each of those files after onnxslim with its defaults (onnxslim.slim(model), what
            `onnxslim IN OUT` does; optimum's own --slim runs it before the decoders are merged,
            so the files are slimmed here after the export, as users slim what optimum wrote).
            Files: optimum_<stem>[_past].<file>.slim.onnx.

Run with the interpreter of the virtual environment of export_third.py (requirements-third.txt);
nothing is downloaded but the packages (export_third sets HF_HUB_OFFLINE and TRANSFORMERS_OFFLINE
before the libraries load). An architecture optimum cannot export offline is listed under
not_exported with optimum's reason, and so is a file onnxslim fails on.

Labels (ground_truth.json) mean what they mean in tests/corpus/third: export_third.optimum_runs,
run_row and label, the verdicts of torch2_runs.py. Each file runs on ONNX Runtime (CPU, 1 thread,
full weights) and on the transformers model optimum traced, called inside optimum's export
patcher as optimum's validation calls it, on the same inputs (optimum's dummy inputs, all-ones
masks), at the export size first and then at 3-6 other sizes along the axes the file declares
dynamic (SIZES here and in export_third: other batches; other sequence, decoder and past lengths;
images of 96, 72, 50, 128 and 64 x 100 beside the export's 64 x 64; audio of 8000, 12345, 400 and
24001 samples beside 16000; AST, whose spectrogram optimum declares dynamic in its batch only, other
batches). A run is ok, ORT fails, wrong shape, wrong values, or not counted (eager fails, or the
file declares an axis static with another size). A file ONNX Runtime refuses to load runs the same
way, each run ORT fails with the load error (FailedSession). A slim file runs against the same
eager model at the same sizes; its label adds `processor`, `processed_from` and `source_breaks`
(the label of the file it was made from), as tests/corpus/post does.

The corpus is held out as a whole: every label has `held_out: true`, and a `family` (vision,
dense, detection, audio, text, decoder, seq2seq). The list of architectures and configs was
fixed before any file was linted; do not tune a rule on these files. Committed files are
graph-only (export_third.store, model_files.graph_only); the full models stay in --scratch.
The directory, intermediate_shapes.json included, must stay under 12 MiB (checked), so that file
is written with a budget of its own: tools/models/intermediate_shapes.py tests/corpus/pipes
--budget-mib 2.5. Re-run under PYTHONHASHSEED=0 (export_third.fixed_hash_seed), the files and
labels are byte-identical from run to run.
"""

import argparse
import logging
import os
import tempfile
import time
import traceback
import warnings

import export_third as third  # noqa: E402  (sets the offline variables before the libraries load)

import onnx  # noqa: E402
import torch  # noqa: E402

import export_examples as ex  # noqa: E402
import export_post as post  # noqa: E402  (process: onnxslim in a child with a timeout)
import torch2_runs as runs  # noqa: E402

ROOT = third.ROOT
MAX_DIR = 12 * 1024 * 1024  # the directory's budget, intermediate_shapes.json included
VOCAB = third.VOCAB  # export_third's decoder inputs draw ids below it

# ---------------------------------------------------------------- the models

TEXT = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
            vocab_size=VOCAB)
VIT_LIKE = dict(TEXT, image_size=64, patch_size=8)
S2S = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
           decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=VOCAB,
           max_position_embeddings=64)
AUDIO = dict(TEXT, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
             num_conv_pos_embedding_groups=2, classifier_proj_size=16)
DECODER = dict(TEXT, max_position_embeddings=128)
TINY_RESNET = dict(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                   layer_type="basic", out_features=["stage2"])
DETR_LIKE = dict(use_timm_backbone=False, use_pretrained_backbone=False, backbone=None,
                 backbone_config={"model_type": "resnet", **TINY_RESNET}, d_model=32, encoder_layers=1,
                 decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                 decoder_ffn_dim=64, num_queries=10)
STAGES4 = dict(hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1])


def pipes_models():
    """(stem, family, transformers class, config class, config kwargs, task, sizes kind,
    main_export kwargs). The kind picks the sizes each file runs at (export_third.file_plan and
    SIZES). Images are 64 x 64 at export (image_size=64 where the config has one, optimum's
    default otherwise), audio 16000 samples, text 16 tokens (optimum's defaults)."""
    return [
        # vision: image classification
        ("swin", "vision", "SwinForImageClassification", "SwinConfig",
         dict(image_size=64, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=4),
         "image-classification", "pipes_image", {}),
        ("mobilevit", "vision", "MobileViTForImageClassification", "MobileViTConfig",
         dict(image_size=64, patch_size=2, hidden_sizes=[16, 24, 32],
              neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64], num_attention_heads=4),
         "image-classification", "pipes_image", {}),
        ("levit", "vision", "LevitForImageClassification", "LevitConfig",
         dict(image_size=64, hidden_sizes=[16, 32, 48], num_attention_heads=[1, 2, 3], depths=[1, 1, 1],
              key_dim=[8, 8, 8]),
         "image-classification", "pipes_image", {}),
        ("convnext", "vision", "ConvNextForImageClassification", "ConvNextConfig",
         dict(STAGES4, image_size=64), "image-classification", "pipes_image", {}),
        ("poolformer", "vision", "PoolFormerForImageClassification", "PoolFormerConfig",
         dict(STAGES4, image_size=64), "image-classification", "pipes_image", {}),
        ("mobilenet_v2", "vision", "MobileNetV2ForImageClassification", "MobileNetV2Config",
         dict(image_size=64, depth_multiplier=0.35), "image-classification", "pipes_image", {}),
        ("resnet", "vision", "ResNetForImageClassification", "ResNetConfig",
         dict(STAGES4, embedding_size=8, layer_type="basic"), "image-classification", "pipes_image", {}),
        ("regnet", "vision", "RegNetForImageClassification", "RegNetConfig",
         dict(STAGES4, embedding_size=8, groups_width=8), "image-classification", "pipes_image", {}),
        ("efficientnet", "vision", "EfficientNetForImageClassification", "EfficientNetConfig",
         dict(image_size=64, width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=320),
         "image-classification", "pipes_image", {}),
        # (Data2Vec-Vision, whose modeling code is BEiT's copied, is left out: it measures nothing BEiT
        # does not, and its two files and their intermediate shapes take 0.8 MB of the budget)
        ("beit", "vision", "BeitForImageClassification", "BeitConfig",
         dict(VIT_LIKE, use_relative_position_bias=True), "image-classification", "pipes_image", {}),
        ("deit", "vision", "DeiTForImageClassification", "DeiTConfig", VIT_LIKE,
         "image-classification", "pipes_image", {}),
        ("dinov2", "vision", "Dinov2ForImageClassification", "Dinov2Config", VIT_LIKE,
         "image-classification", "pipes_image", {}),
        ("cvt", "vision", "CvtForImageClassification", "CvtConfig",
         dict(embed_dim=[16, 32, 48], depth=[1, 2, 3], num_heads=[1, 2, 3]),  # stage k needs depth > k
         "image-classification", "pipes_image", {}),
        ("pvt", "vision", "PvtForImageClassification", "PvtConfig",
         dict(STAGES4, image_size=64, hidden_sizes=[16, 32, 48, 64], num_attention_heads=[1, 1, 2, 2]),
         "image-classification", "pipes_image", {}),
        # dense prediction
        ("segformer", "dense", "SegformerForSemanticSegmentation", "SegformerConfig",
         dict(image_size=64, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
              patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2],
              decoder_hidden_size=32),
         "semantic-segmentation", "pipes_image", {}),
        ("dpt", "dense", "DPTForDepthEstimation", "DPTConfig",
         dict(VIT_LIKE, num_hidden_layers=4, backbone_out_indices=[0, 1, 2, 3], neck_hidden_sizes=[8, 16, 32, 32],
              fusion_hidden_size=16, head_hidden_size=16),
         "depth-estimation", "pipes_image", {}),
        ("glpn", "dense", "GLPNForDepthEstimation", "GLPNConfig",
         dict(hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1], num_attention_heads=[1, 1, 2, 2],
              decoder_hidden_size=16),
         "depth-estimation", "pipes_image", {}),
        # detection
        ("table_transformer", "detection", "TableTransformerForObjectDetection", "TableTransformerConfig",
         DETR_LIKE, "object-detection", "pipes_image", {}),
        ("conditional_detr", "detection", "ConditionalDetrForObjectDetection", "ConditionalDetrConfig",
         DETR_LIKE, "object-detection", "pipes_image", {}),
        # audio
        ("hubert", "audio", "HubertForCTC", "HubertConfig", AUDIO, "automatic-speech-recognition",
         "pipes_audio", {}),
        ("sew", "audio", "SEWForCTC", "SEWConfig", AUDIO, "automatic-speech-recognition", "pipes_audio", {}),
        ("unispeech", "audio", "UniSpeechForCTC", "UniSpeechConfig", AUDIO, "automatic-speech-recognition",
         "pipes_audio", {}),
        ("wavlm", "audio", "WavLMForSequenceClassification", "WavLMConfig", AUDIO, "audio-classification",
         "pipes_audio", {}),
        ("data2vec_audio", "audio", "Data2VecAudioForSequenceClassification", "Data2VecAudioConfig", AUDIO,
         "audio-classification", "pipes_audio", {}),
        # AST takes a spectrogram of max_length frames (optimum declares only its batch dynamic)
        ("ast", "audio", "ASTForAudioClassification", "ASTConfig",
         dict(TEXT, max_length=64, num_mel_bins=32, frequency_stride=10, time_stride=10),
         "audio-classification", "pipes_spectrogram", {}),
        ("speecht5", "audio", "SpeechT5ForTextToSpeech", "SpeechT5Config",
         dict(hidden_size=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
              decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=VOCAB,
              num_mel_bins=8, speech_decoder_prenet_units=32, speech_decoder_postnet_units=32,
              speaker_embedding_dim=16, max_text_positions=64, max_speech_positions=64),
         "text-to-audio", "pipes_text", {}),
        # text encoders
        ("albert", "text", "AlbertForMaskedLM", "AlbertConfig",
         dict(TEXT, embedding_size=16, max_position_embeddings=64), "fill-mask", "pipes_text", {}),
        # DeBERTa-v3's attention settings (relative positions in log buckets, no absolute ones)
        ("deberta_v2", "text", "DebertaV2ForMaskedLM", "DebertaV2Config",
         dict(TEXT, max_position_embeddings=64, relative_attention=True, position_buckets=256,
              pos_att_type=["p2c", "c2p"], position_biased_input=False, norm_rel_ebd="layer_norm",
              share_att_key=True, max_relative_positions=-1),
         "fill-mask", "pipes_text", {}),
        ("electra", "text", "ElectraForMaskedLM", "ElectraConfig",
         dict(TEXT, embedding_size=16, max_position_embeddings=64), "fill-mask", "pipes_text", {}),
        ("mobilebert", "text", "MobileBertForMaskedLM", "MobileBertConfig",
         dict(TEXT, embedding_size=16, intra_bottleneck_size=16, num_feedforward_networks=2,
              max_position_embeddings=64),
         "fill-mask", "pipes_text", {}),
        ("xlm_roberta", "text", "XLMRobertaModel", "XLMRobertaConfig", dict(TEXT, max_position_embeddings=66),
         "feature-extraction", "pipes_text", {}),
        # decoders with past key values
        ("gpt_neo", "decoder", "GPTNeoForCausalLM", "GPTNeoConfig",
         dict(hidden_size=32, num_layers=2, num_heads=4, intermediate_size=64, vocab_size=VOCAB,
              max_position_embeddings=128, attention_types=[[["global", "local"], 1]]),
         "text-generation-with-past", "decoder_past", {}),
        ("phi", "decoder", "PhiForCausalLM", "PhiConfig", DECODER, "text-generation-with-past",
         "decoder_past", {}),
        ("mistral", "decoder", "MistralForCausalLM", "MistralConfig", dict(DECODER, num_key_value_heads=2),
         "text-generation-with-past", "decoder_past", {}),
        ("gemma", "decoder", "GemmaForCausalLM", "GemmaConfig", dict(DECODER, num_key_value_heads=1, head_dim=8),
         "text-generation-with-past", "decoder_past", {}),
        # encoder-decoders with past: every file
        ("mbart", "seq2seq", "MBartForConditionalGeneration", "MBartConfig", S2S,
         "text2text-generation-with-past", "seq2seq", {}),
        ("pegasus", "seq2seq", "PegasusForConditionalGeneration", "PegasusConfig", S2S,
         "text2text-generation-with-past", "seq2seq", {}),
        ("longt5", "seq2seq", "LongT5ForConditionalGeneration", "LongT5Config",
         dict(d_model=32, d_ff=64, d_kv=8, num_layers=2, num_heads=4, vocab_size=VOCAB, decoder_start_token_id=0),
         "text2text-generation-with-past", "seq2seq", {}),
    ]


# The sizes of the kinds export_third has no entry for (its "decoder_past" and encoder-decoder
# entries serve here too); the first of each list is the export size.
SIZES = {
    # every other image size eager may refuse (a fixed position table): not counted
    "pipes_image": [{"batch_size": b, "height": h, "width": w} for b, h, w in
                    ((2, 64, 64), (3, 64, 64), (1, 96, 96), (2, 72, 72), (1, 64, 100), (1, 128, 128),
                     (2, 50, 50))],
    "pipes_audio": [{"batch_size": b, "audio_sequence_length": n} for b, n in
                    ((2, 16000), (1, 16000), (3, 8000), (2, 12345), (1, 400), (1, 24001))],
    "pipes_spectrogram": [{"batch_size": b} for b in (2, 1, 3, 5)],
    "pipes_text": [third._t(b, s) for b, s in ((2, 16), (1, 16), (3, 7), (2, 1), (4, 33), (1, 60))],
}


# Image processors saved beside a model, as a checkpoint on the hub has them: optimum's DINOv2
# input generator reads the crop size from the model's preprocessor and fails without one.
PREPROCESSORS = {
    "dinov2": ("BitImageProcessor", dict(size={"shortest_edge": 64}, crop_size={"height": 64, "width": 64})),
}


def register_sizes():
    """Gives export_third's runs (optimum_runs reads its SIZES by kind) the kinds of this corpus."""
    for key, sizes in SIZES.items():
        third.SIZES.setdefault(key, sizes)


# ---------------------------------------------------------------- export, slim, label

class FailedSession:
    """Stands for an ONNX Runtime session of a file ORT refuses to load: its inputs and outputs
    are the file's, and every run raises ORT's load error (each run's verdict: ORT fails)."""

    class Value:
        def __init__(self, name):
            self.name = name

    def __init__(self, path, error):
        model = onnx.load(path, load_external_data=False)
        self.inputs = [self.Value(vi.name) for vi in runs.graph_inputs(model)]
        self.outputs = [self.Value(vi.name) for vi in model.graph.output]
        self.error = error

    def get_inputs(self):
        return self.inputs

    def get_outputs(self):
        return self.outputs

    def run(self, *args, **kw):
        raise self.error


def optimum_runs(path, plans):
    """export_third.optimum_runs, and where ORT refuses to load the file, the same runs with
    FailedSession in place of the session (the eager side runs as always). Returns (model,
    rows, load error or None)."""
    try:
        third.session(path)
    except Exception as err:  # noqa: B902  (ORT raises its own kinds)
        # ORT names the file it loaded: the scratch directory goes (no machine paths in labels)
        err = RuntimeError(str(err).replace(os.path.dirname(os.path.abspath(path)) + os.sep, ""))
        session = third.session
        third.session = lambda p: FailedSession(p, err)
        try:
            return third.optimum_runs(path, plans) + (err,)
        finally:
            third.session = session
    return third.optimum_runs(path, plans) + (None,)


def slim_file(path, work):
    """(slimmed ModelProto, None) or (None, why not): onnxslim.slim with its defaults, in a child
    process with a timeout (export_post.process)."""
    os.makedirs(work, exist_ok=True)
    with third.quiet():
        return post.process("slim", onnx.load(path), work)


def file_label(family, stem, source, pipeline, path, plans, notes, name, out):
    """Runs one file at its sizes, stores it graph-only in `out` and returns its label."""
    with third.quiet():
        model, rows, load_error = optimum_runs(path, plans)
    if load_error is not None:
        notes = notes + ["ONNX Runtime refuses to load the file: %s" % ex.shorten(
            ex.short_ort_error(" ".join(str(load_error).split())), 300)]
    external = third.store(model, name, out)
    lab = third.label(family, stem, source, pipeline, model, rows, notes, external)
    lab["held_out"] = True
    return lab


def report(name, lab, started):
    print("  %-56s breaks=%-5s %s (%.1f s)" % (name, lab["breaks"], third.summary(lab), time.time() - started),
          flush=True)


def pipes(a, scratch, labels, not_exported):
    """Exports each model with main_export, then runs and labels every file it wrote and the
    file onnxslim makes of it."""
    import onnxslim
    slim_version = "onnxslim " + onnxslim.__version__
    for stem, family, cls, config_cls, config, task, kind, shapes in pipes_models():
        tag = stem + third.task_tag(task)
        if a.only and tag not in a.only and stem not in a.only:
            continue
        print("\n=== optimum %s (%s)" % (tag, task), flush=True)
        source = third.hf_source(cls, config_cls, config)
        pipeline = "save_pretrained(DIR); optimum.exporters.onnx.main_export(DIR, OUT, task=%r%s)" % (
            task, "".join(", %s=%r" % kv for kv in shapes.items()))
        if stem in PREPROCESSORS:
            import transformers
            proc_cls, proc_kwargs = PREPROCESSORS[stem]
            saved = "save_pretrained(DIR) (and transformers.%s(%s))" % (
                proc_cls, ", ".join("%s=%r" % kv for kv in proc_kwargs.items()))
            pipeline = pipeline.replace("save_pretrained(DIR)", saved)
            getattr(transformers, proc_cls)(**proc_kwargs).save_pretrained(os.path.join(scratch, "hf", tag))
        try:
            out, spy = third.optimum_export(stem, cls, config_cls, config, task, shapes, scratch)
        except Exception as err:
            key = "optimum_%s" % tag
            not_exported[key] = {"family": family, "stem": stem, "source": source, "pipeline": pipeline,
                                 "error": ex.shorten(runs.portable_text(third.error_text(err)), 400)}
            print("  NOT EXPORTED: %s" % not_exported[key]["error"])
            traceback.print_exc(limit=2)
            continue
        notes = []
        if spy.error is not None:
            notes.append("optimum's own validation at the export size: %s: %s"
                         % (type(spy.error).__name__, ex.first_line(spy.error)))
        for fname, plans in third.optimum_files(kind, out, spy):
            name = "optimum_%s.%s" % (tag, fname)
            path = os.path.join(out, fname)
            started = time.time()
            file_notes = list(notes)
            if fname == "decoder_model_merged.onnx":
                file_notes.append("merged by optimum from decoder_model (the use_cache_branch=false runs) "
                                  "and decoder_with_past_model (the use_cache_branch=true runs, whose "
                                  "export size is export_inputs); the no-cache branch gets optimum's dummy "
                                  "past of length 1")
            lab = file_label(family, stem, source, pipeline, path, plans, file_notes, name, a.out)
            try:
                with third.quiet():
                    traced = third.export_shapes(path, plans[0][1], spy.seen["input_shapes"])
            except Exception as err:  # noqa: B902  (ORT refuses the file: its label says so)
                traced = "unknown (%s)" % type(err).__name__
            if traced != lab["runs"][0]["inputs"]:
                print("  PROBLEM: %s: the first run %s is not the export size %s"
                      % (name, lab["runs"][0]["inputs"], traced))
            labels[name] = lab
            report(name, lab, started)

            slim_name = name[:-len(".onnx")] + ".slim.onnx"
            started = time.time()
            slimmed, why = slim_file(path, os.path.join(scratch, "slim-work"))
            if slimmed is None:
                not_exported[slim_name] = {"family": family, "stem": stem, "source": source,
                                           "pipeline": pipeline + "; onnxslim.slim(FILE)", "processor": "slim",
                                           "error": ex.shorten(runs.portable_text(why), 400)}
                print("  NOT SLIMMED: %s" % not_exported[slim_name]["error"])
                continue
            slim_path = os.path.join(out, fname[:-len(".onnx")] + ".slim.onnx")
            onnx.save(slimmed, slim_path)
            slab = file_label(family, stem, source, pipeline + "; onnxslim.slim(FILE)", slim_path, plans,
                              file_notes, slim_name, a.out)
            slab.update({"processor": "slim", "processor_version": slim_version, "processed_from": name,
                         "source_breaks": lab["breaks"]})
            labels[slim_name] = slab
            report(slim_name, slab, started)


# ---------------------------------------------------------------- the document

FAMILIES = ("vision", "dense", "detection", "audio", "text", "decoder", "seq2seq")


def counts(labels, not_exported):
    def count(items):
        items = list(items)
        b = sum(1 for v in items if v["breaks"])
        return {"models": len(items), "breaks": b, "healthy": len(items) - b}
    out = {"all": count(labels.values()), "not_exported": len(not_exported),
           "exported": count(v for v in labels.values() if "processor" not in v),
           "slim": count(v for v in labels.values() if "processor" in v)}
    for f in FAMILIES:
        out[f] = count(v for v in labels.values() if v["family"] == f)
    return out


ABOUT = ("Ground truth for the models in this directory, written by tools/models/export_pipes.py "
         "(never edited by hand): optimum-onnx's main_export on tiny random transformers models of "
         "architectures tests/corpus/third does not hold (each as exported, and .slim: the same file after "
         "onnxslim.slim with its defaults). Each model ran on ONNX Runtime (CPU, 1 thread, full weights) and "
         "on the eager transformers model optimum traced (a slim file against the same one), on the same "
         "inputs; the first run is the export size. Runs, verdicts and tolerance as in tests/corpus/third "
         "(export_third.py, torch2_runs.py): 'breaks': ORT fails, or its output shape or values differ from "
         "eager, at some size where eager runs and the file declares the axes dynamic. Optimum runs use "
         "optimum's dummy inputs with all-ones attention masks, the past length set apart from the sequence "
         "length; 'branch' marks the merged decoder's use_cache_branch. Every model is held out (the whole "
         "corpus is); 'family' is vision, dense, detection, audio, text, decoder or seq2seq. 'source_breaks': "
         "the label of the file a slim file was made from. 'suspects': nodes reading a constant that holds "
         "an export size (found automatically). The files are graph-only: float initializers over 1 KiB are "
         "external data that is not shipped.")


def main():
    third.fixed_hash_seed()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "corpus", "pipes"))
    ap.add_argument("--scratch", help="full models, saved transformers models and temporaries "
                                      "(default: a temporary directory)")
    ap.add_argument("--only", nargs="*", help="only these stems (their labels are replaced)")
    a = ap.parse_args()

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    register_sizes()
    a.out = os.path.normpath(a.out)
    os.makedirs(a.out, exist_ok=True)
    scratch = os.path.abspath(a.scratch or tempfile.mkdtemp(prefix="shapelint-pipes-"))
    os.makedirs(scratch, exist_ok=True)
    labels_path, labels, not_exported = third.open_labels(a.out, a.only)
    if a.only:  # the labels of what is exported again are replaced, whatever the outcome
        for table in (labels, not_exported):
            for key in [k for k, v in table.items() if v["stem"] in a.only or k.split(".")[0][8:] in a.only]:
                del table[key]
    pipes(a, scratch, labels, not_exported)
    third.write_labels(labels_path, a.out, ABOUT, third.versions(), counts, labels, not_exported, MAX_DIR)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""`import mgrt` end to end (python/mgrt_module.cpp), the way a Python user
meets it: the shipped example CNN compiled by mgc, run from numpy arrays and
compared with PyTorch's logits; errors as Python exceptions naming the
tensor; a training bundle trained from Python with its state saved, loaded
and written back; the training example script. Validation layer on.

    MGC=build/mgc PYTHONPATH=build/python /usr/bin/python3 tests/python/test_mgrt.py
"""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import mgrt

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MGC = os.environ.get("MGC", os.path.join(ROOT, "build", "mgc"))
TMP = tempfile.mkdtemp(prefix="mgrt-python-")


def compile_bundle(name, *flags):
    out = os.path.join(TMP, name)
    subprocess.run([MGC, "compile", os.path.join(ROOT, "examples", "cnn.onnx"), "-o", out, "-q", *flags], check=True)
    return out


class Inference(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = mgrt.load(compile_bundle("cnn.mgb"), validation=True)

    def test_matches_pytorch(self):
        s = self.model.session("infer")
        self.assertEqual(self.model.entry_points, ["infer"])
        self.assertEqual([(t.name, t.dtype, t.shape) for t in s.inputs], [("x", "float32", [8, 1, 28, 28])])
        x = np.load(os.path.join(ROOT, "examples", "cnn_input.npy"))
        want = np.load(os.path.join(ROOT, "examples", "cnn_expected.npy"))
        out = s.run(x=x)
        self.assertEqual(list(out), [t.name for t in s.outputs])
        got = next(iter(out.values()))
        self.assertEqual(got.shape, want.shape)
        self.assertLess(np.abs(got - want).max() / np.abs(want).max(), 1e-4)
        # float64 input is converted to the bundle's float32, like numpy.asarray
        # (split-K convolutions add with atomics: runs agree to rounding, not bits)
        got64 = next(iter(s.run(x=x.astype(np.float64)).values()))
        np.testing.assert_allclose(got64, got, rtol=0, atol=1e-6 * np.abs(want).max())
        self.assertGreater(s.last_gpu_ms, 0)
        self.assertEqual(self.model.context.validation_messages, 0)

    def test_errors_name_the_tensor(self):
        s = self.model.session()
        with self.assertRaisesRegex(ValueError, r"input 'x' has shape \(8, 28, 28\), the bundle expects \(8, 1, 28, 28\)"):
            s.run(x=np.zeros((8, 28, 28), np.float32))
        with self.assertRaisesRegex(ValueError, "input 'x' not given"):
            s.run()
        with self.assertRaisesRegex(ValueError, "no input 'y'"):
            s.run(x=np.zeros((8, 1, 28, 28), np.float32), y=np.zeros(1))
        with self.assertRaisesRegex(mgrt.Error, "entry point 'train_step'"):
            self.model.session("train_step")
        with self.assertRaisesRegex(mgrt.Error, "no/such.mgb"):
            mgrt.load("no/such.mgb")
        bad = os.path.join(TMP, "truncated.mgb")
        with open(os.path.join(TMP, "cnn.mgb"), "rb") as f, open(bad, "wb") as g:
            g.write(f.read()[:1000])
        with self.assertRaisesRegex(mgrt.Error, "truncated"):
            mgrt.load(bad)


class SelfCheck(unittest.TestCase):
    def test_verify_passes_and_catches_altered_weights(self):
        bundle = compile_bundle("cnn-check.mgb", "--embed-check")
        model = mgrt.load(bundle, validation=True)
        self.assertTrue(model.has_check)
        r = model.verify()
        self.assertTrue(r["passed"], r)
        self.assertEqual(r["entry_point"], "infer")
        self.assertEqual([o["name"] for o in r["outputs"]], [t.name for t in model.session().outputs])
        self.assertLess(r["worst_error"], r["tolerance"])
        # the caller's tolerance replaces the bundle's; a failed check is a
        # verdict, not an exception
        strict = model.verify(tolerance=0.0)
        self.assertEqual(strict["tolerance"], 0.0)
        self.assertEqual(strict["passed"], r["worst_error"] == 0)
        tampered = os.path.join(TMP, "cnn-check-tampered.mgb")
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "compiler", "cli", "tamper_bundle.py"),
                        bundle, tampered, "weights", "3", "0x40"], check=True)
        bad = mgrt.load(tampered).verify()
        self.assertFalse(bad["passed"])
        self.assertGreater(bad["worst_error"], bad["tolerance"])
        self.assertFalse(mgrt.load(compile_bundle("cnn.mgb")).has_check)
        with self.assertRaisesRegex(mgrt.Error, "verify"):
            mgrt.load(compile_bundle("cnn.mgb")).verify()


class Training(unittest.TestCase):
    def test_train_save_load_state(self):
        bundle = compile_bundle("cnn-train.mgb", "--train", "--optimizer", "adamw", "--lr", "1e-3")
        ctx = mgrt.Context(validation=True)
        model = ctx.load(bundle)
        self.assertEqual(sorted(model.entry_points), ["infer", "train_step"])
        train = model.session("train_step")
        x = np.load(os.path.join(ROOT, "examples", "cnn_input.npy"))
        labels = np.arange(8, dtype=np.int64) % 10
        names = [t.name for t in model.state]
        self.assertIn("opt.step", names)
        weight = next(t for t in model.state if t.name != "opt.step" and len(t.shape) == 4)
        before = model.read_state(weight.name)
        first = float(train.run(x=x, labels=labels)["loss"])
        ck = os.path.join(TMP, "ck.safetensors")
        model.save_state(ck)
        losses = [float(train.run(x=x, labels=labels)["loss"]) for _ in range(15)]
        self.assertLess(losses[-1], first)  # one batch, 16 AdamW steps: it fits
        self.assertFalse(np.array_equal(model.read_state(weight.name), before))
        # Back to the checkpoint: the next step repeats the second step (to
        # rounding: the split-K classifier product adds with atomics).
        model.load_state(ck)
        self.assertAlmostEqual(float(train.run(x=x, labels=labels)["loss"]), losses[0], delta=1e-5 * abs(losses[0]))
        # write_state / read_state round trip, checked shape
        model.write_state(weight.name, before)
        np.testing.assert_array_equal(model.read_state(weight.name), before)
        with self.assertRaisesRegex(ValueError, "state '%s' has shape" % weight.name):
            model.write_state(weight.name, before[0])
        with self.assertRaises(KeyError):
            model.read_state("no.such.tensor")
        self.assertEqual(ctx.validation_messages, 0)

    def test_example_script(self):
        bundle = compile_bundle("cnn-train2.mgb", "--train", "--optimizer", "adamw", "--lr", "1e-3")
        env = dict(os.environ)
        out = subprocess.run([sys.executable, os.path.join(ROOT, "python", "examples", "train_fashion_mnist.py"), bundle,
                              "--steps", "60", "--checkpoint", os.path.join(TMP, "example.safetensors")],
                             check=True, capture_output=True, text=True, env=env).stdout
        losses = [float(l.split()[-1]) for l in out.splitlines() if l.startswith("step")]
        self.assertLess(losses[-1], losses[0])
        self.assertIn("test batch accuracy", out)
        self.assertTrue(os.path.exists(os.path.join(TMP, "example.safetensors")))


if __name__ == "__main__":
    unittest.main(verbosity=2)

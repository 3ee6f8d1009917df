#!/usr/bin/env python3
"""Max normalized error between mgc's output and PyTorch's: compare.py GOT.npy REF.npy"""
import sys

import numpy as np

got, ref = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2]).astype(np.float64)
err = np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-6)
print(f"{err:.3g}")

"""The reference workloads' model definitions, at any width: ResNet (small,
written out; the benchmark uses torchvision's ResNet-50), the Whisper
encoder, a Stable-Diffusion-style U-Net, SmolLM2 (Llama), a SmolVLA-style
action expert. Written out the way the real models are, so that their ONNX
exports look like the real ones'. Shared by tools/gen_workload_fixtures.py
(small width, test fixtures) and bench/workloads.py (full size, on the GPU
machine). Works with PyTorch 1.13 and 2.x.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


# ---- building blocks ----


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(d) + 0.5)
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(t, head_dim, device, theta=10000.0):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64, device=device) / head_dim))
    freqs = torch.outer(torch.arange(t, dtype=torch.float64, device=device), inv)
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


class LlamaAttention(nn.Module):
    """GQA attention with RoPE (Hugging Face Llama), optionally causal; with
    `cross`, keys and values come from a context sequence (no RoPE)."""

    def __init__(self, d, heads, kv_heads, causal, cross=False):
        super().__init__()
        self.h, self.kv, self.hd, self.causal, self.cross = heads, kv_heads, d // heads, causal, cross
        self.q_proj = nn.Linear(d, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(heads * self.hd, d, bias=False)

    def forward(self, x, context=None):
        n, t, _ = x.shape
        src = context if self.cross else x
        s = src.shape[1]
        q = self.q_proj(x).view(n, t, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(src).view(n, s, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(src).view(n, s, self.kv, self.hd).transpose(1, 2)
        if not self.cross:
            cos, sin = rope_tables(t, self.hd, x.device)  # constants in the export (not parameters)
            cos, sin = cos.to(x.dtype), sin.to(x.dtype)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
        rep = self.h // self.kv
        k = k[:, :, None].expand(n, self.kv, rep, s, self.hd).reshape(n, self.h, s, self.hd)
        v = v[:, :, None].expand(n, self.kv, rep, s, self.hd).reshape(n, self.h, s, self.hd)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.hd)
        if self.causal:
            mask = torch.ones(t, s, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        y = torch.softmax(scores, -1) @ v
        return self.o_proj(y.transpose(1, 2).reshape(n, t, self.h * self.hd))


class SwiGLU(nn.Module):
    def __init__(self, d, ff):
        super().__init__()
        self.gate_proj = nn.Linear(d, ff, bias=False)
        self.up_proj = nn.Linear(d, ff, bias=False)
        self.down_proj = nn.Linear(ff, d, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, d, heads, kv_heads, ff, causal):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = LlamaAttention(d, heads, kv_heads, causal)
        self.post_attention_layernorm = RMSNorm(d)
        self.mlp = SwiGLU(d, ff)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


# ---- the workloads ----

class Bottleneck(nn.Module):
    def __init__(self, cin, width, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
        self.conv3, self.bn3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return F.relu(y + (self.downsample(x) if self.downsample is not None else x))


class ResNet(nn.Module):
    """ResNet-50's shape: stem, max-pool, bottleneck stages, global pool, fc."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8)
        self.layer1 = Bottleneck(8, 4, 16, 1)
        self.layer2 = Bottleneck(16, 8, 32, 2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class WhisperEncoder(nn.Module):
    """Whisper's audio encoder: two Conv1d + GELU (the second strided),
    sinusoidal positions, pre-LN transformer blocks, a final LayerNorm."""

    def __init__(self, mels=8, d=32, heads=4, layers=2, frames=32):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        t = frames // 2
        inv = torch.exp(-math.log(10000.0) / (d // 2 - 1) * torch.arange(d // 2, dtype=torch.float64))
        ang = torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]
        self.positions = torch.cat([ang.sin(), ang.cos()], 1)  # a constant, as Whisper's buffer
        self.blocks = nn.ModuleList([WhisperBlock(d, heads) for _ in range(layers)])
        self.ln_post = nn.LayerNorm(d)

    def forward(self, mel):
        x = F.gelu(self.conv1(mel))
        x = F.gelu(self.conv2(x)).transpose(1, 2)
        x = x + self.positions.to(x.device, x.dtype)
        for b in self.blocks:
            x = b(x)
        return self.ln_post(x)


class WhisperBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.attn_ln = nn.LayerNorm(d)
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d, bias=False), nn.Linear(d, d)
        self.out = nn.Linear(d, d)
        self.mlp_ln = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        n, t, d = x.shape
        y = self.attn_ln(x)
        q, k, v = (p(y).view(n, t, self.h, d // self.h).transpose(1, 2) for p in (self.query, self.key, self.value))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.h), -1) @ v
        x = x + self.out(a.transpose(1, 2).reshape(n, t, d))
        return x + self.mlp(self.mlp_ln(x))


class ResBlock(nn.Module):
    def __init__(self, cin, cout, groups=4):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(groups, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.norm2, self.conv2 = nn.GroupNorm(groups, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else None

    def forward(self, x):
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return h + (self.skip(x) if self.skip is not None else x)


class AttnBlock(nn.Module):
    def __init__(self, c, heads=2, groups=4):
        super().__init__()
        self.h = heads
        self.norm = nn.GroupNorm(groups, c)
        self.qkv = nn.Linear(c, 3 * c)
        self.proj = nn.Linear(c, c)

    def forward(self, x):
        n, c, hh, ww = x.shape
        y = self.norm(x).flatten(2).transpose(1, 2)  # [n, hw, c]
        q, k, v = self.qkv(y).chunk(3, -1)
        q, k, v = (z.reshape(n, hh * ww, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(c // self.h), -1) @ v
        a = self.proj(a.transpose(1, 2).reshape(n, hh * ww, c))
        return x + a.transpose(1, 2).reshape(n, c, hh, ww)


class UNet(nn.Module):
    """A Stable-Diffusion-style U-Net: GroupNorm/SiLU residual blocks, strided
    conv downsampling, attention at the levels in `attn_levels` and in the
    middle, 2x upsampling (nearest + conv, or ConvTranspose2d), skip
    concatenations. channels: one entry per resolution level."""

    def __init__(self, upsample, channels=(16, 32), attn_levels=(1,), groups=4, heads=2, in_channels=4):
        super().__init__()
        self.upsample_mode = upsample
        c0 = channels[0]
        self.conv_in = nn.Conv2d(in_channels, c0, 3, padding=1)
        self.down, self.down_attn, self.downsample = nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        skips, prev = [c0], c0
        for i, c in enumerate(channels):
            self.down.append(ResBlock(prev, c, groups))
            self.down_attn.append(AttnBlock(c, heads, groups) if i in attn_levels else nn.Identity())
            skips.append(c)
            prev = c
            if i + 1 < len(channels):
                self.downsample.append(nn.Conv2d(c, c, 3, stride=2, padding=1))
        self.mid1, self.mid_attn, self.mid2 = ResBlock(prev, prev, groups), AttnBlock(prev, heads, groups), \
            ResBlock(prev, prev, groups)
        self.up, self.up_attn, self.upsample = nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        for i in reversed(range(len(channels))):
            c = channels[i]
            self.up.append(ResBlock(prev + skips.pop(), c, groups))
            self.up_attn.append(AttnBlock(c, heads, groups) if i in attn_levels else nn.Identity())
            prev = c
            if i > 0:
                self.upsample.append(nn.Conv2d(c, c, 3, padding=1) if upsample == "nearest"
                                     else nn.ConvTranspose2d(c, c, 2, stride=2))
        self.final = ResBlock(prev + skips.pop(), c0, groups)
        self.norm_out = nn.GroupNorm(groups, c0)
        self.conv_out = nn.Conv2d(c0, in_channels, 3, padding=1)

    def forward(self, x):
        h = self.conv_in(x)
        skips = [h]
        for i, (block, attn) in enumerate(zip(self.down, self.down_attn)):
            h = attn(block(h))
            skips.append(h)
            if i < len(self.downsample):
                h = self.downsample[i](h)
        h = self.mid2(self.mid_attn(self.mid1(h)))
        for i, (block, attn) in enumerate(zip(self.up, self.up_attn)):
            h = attn(block(torch.cat([h, skips.pop()], 1)))
            if i < len(self.upsample):
                if self.upsample_mode == "nearest":
                    h = F.interpolate(h, scale_factor=2.0, mode="nearest")
                h = self.upsample[i](h)
        h = self.final(torch.cat([h, skips.pop()], 1))
        return self.conv_out(F.silu(self.norm_out(h)))


class SmolLM(nn.Module):
    """SmolLM2's architecture (Llama: RMSNorm, RoPE, GQA, SwiGLU, tied
    embeddings). With in_model_loss, forward(ids, labels) returns
    F.cross_entropy over the flattened tokens, the Hugging Face way."""

    def __init__(self, in_model_loss, vocab=96, d=32, heads=4, kv_heads=2, ff=64, layers=2):
        super().__init__()
        self.in_model_loss = in_model_loss
        self.embed_tokens = nn.Embedding(vocab, d)
        nn.init.normal_(self.embed_tokens.weight, std=0.3)  # logits of a realistic scale (tied head)
        self.layers = nn.ModuleList([LlamaLayer(d, heads, kv_heads, ff, True) for _ in range(layers)])
        self.norm = RMSNorm(d)

    def forward(self, input_ids, labels=None):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        logits = self.norm(x) @ self.embed_tokens.weight.t()  # tied lm_head
        if not self.in_model_loss:
            return logits
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))


class ActionExpert(nn.Module):
    """A SmolVLA-style action expert: Llama layers over noisy action tokens,
    interleaved with cross-attention to the vision-language features,
    predicting the flow-matching velocity."""

    def __init__(self, action_dim=6, d=32, heads=4, kv_heads=2, ff=64, layers=2):
        super().__init__()
        self.action_in = nn.Linear(action_dim, d)
        self.layers = nn.ModuleList([LlamaLayer(d, heads, kv_heads, ff, False) for _ in range(layers)])
        self.cross_norms = nn.ModuleList([RMSNorm(d) for _ in range(layers)])
        self.cross = nn.ModuleList([LlamaAttention(d, heads, kv_heads, False, cross=True) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.action_out = nn.Linear(d, action_dim)

    def forward(self, actions, context):
        x = self.action_in(actions)
        for layer, norm, cross in zip(self.layers, self.cross_norms, self.cross):
            x = layer(x)
            x = x + cross(norm(x), context)
        return self.action_out(self.norm(x))



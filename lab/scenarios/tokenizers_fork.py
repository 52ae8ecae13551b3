"""A fast tokenizer encodes a batch in parallel, then DataLoader workers fork."""

from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from torch.utils.data import DataLoader

import _lab

vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(["the", "loss", "went", "down", "again"])}}
tok = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
tok.pre_tokenizer = Whitespace()
texts = ["the loss went down", "again the loss went down"] * 512
ids = [e.ids for e in tok.encode_batch(texts)]  # uses the Rust thread pool
_lab.say(f"encoded {len(ids)} texts")
loader = DataLoader(ids[:8], batch_size=4, num_workers=2, collate_fn=lambda b: len(b))
_lab.say(f"batches: {list(loader)}")

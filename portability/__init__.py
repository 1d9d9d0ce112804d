"""Moving a bank in and out: streamed JSON-lines export, batched import (MemoryHub, plain JSONL, mem0)."""

"""Python client for MemoryHub: retain episodes, recall a cited slice under a hard token budget.

from memoryhub_client import MemoryHub, AsyncMemoryHub, wrap_openai
"""

from memoryhub_client import errors, models
from memoryhub_client.client import AsyncMemoryHub, MemoryHub, RetainBatchFailed, RetainBatchTimeout
from memoryhub_client.errors import MemoryHubError
from memoryhub_client.models import RetainItemRequest as RetainItem
from memoryhub_client.openai_wrapper import wrap_openai

__all__ = [
    "AsyncMemoryHub",
    "MemoryHub",
    "MemoryHubError",
    "RetainBatchFailed",
    "RetainBatchTimeout",
    "RetainItem",
    "errors",
    "models",
    "wrap_openai",
]
__version__ = "0.1.0"

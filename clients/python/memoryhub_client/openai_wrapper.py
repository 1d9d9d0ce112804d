def wrap_openai(*a, **k): raise NotImplementedError

class FenceError(Exception):
    """The fence cannot be built or used as asked: missing or corrupt wasm or policy, a rejected policy."""

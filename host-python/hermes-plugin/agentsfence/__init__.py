"""Directory form of the AgentsFence plugin: the code lives in the installed `agentsfence` package."""

try:
    from agentsfence.hermes import register
except ImportError as _error:
    # Hermes treats a plugin that fails to load as absent, so tools would run unfenced:
    # register a hook that blocks every call and says why.
    _reason = f"AgentsFence is not installed in Hermes' Python ({_error}), so every tool call is blocked"

    def register(ctx, **kwargs):
        ctx.register_hook("pre_tool_call", lambda **_: {"action": "block", "message": _reason})

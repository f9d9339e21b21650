"""Every private or undocumented part of lark and pygls that plansight relies on, checked by name.

``plansight.analyses.syntax.lalr`` drives lark's LALR(1) tables itself, as ``lalr_compile`` extracts
them (lark's ``parse`` stops at the first error) and ``plansight.server.json_protocol`` replaces
pygls's private send method with a faster encoder. Neither is covered by the libraries' compatibility
promises, so an upgrade may move them in a minor release. Each check below names one internal and the
module of ours that uses it: when an upgrade breaks one, the failure says which and where, instead of
surfacing as a wrong parse or a silent client.

When one fails: find where the new release moved the part, adapt the named module, and update its
comment listing the pinned internals together with the check here. ``pyproject.toml`` bounds both
libraries below their next major version; keep the bound below a release that breaks a pin until the
module is adapted.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from lark import Lark
from lark.lexer import Lexer

from plansight.analyses.syntax.lalr_compile import no_lexer
from plansight.grammar import grammar_text
from plansight.server.json_protocol import FastJsonProtocol

LALR = "plansight.analyses.syntax.lalr_compile"
JSON_PROTOCOL = "plansight.server.json_protocol"
APP = "plansight.server.app"
DOCUMENT_TEXT = "plansight.server.document_text"
TRANSPORT = "plansight.server.transport"
HARNESS = "tests/server_harness.py"
FEATURE_TESTS = "tests/test_server_features.py and tests/test_vscode_server_commands.py"


@dataclass(frozen=True)
class Pin:
    internal: str
    used_by: str
    check: Callable[[], None]


@cache
def _lark() -> Lark:
    """The parser built exactly as ``compile_grammar`` builds it, on the largest of the three grammars."""
    return Lark(grammar_text("pddl"), parser="lalr", lexer=no_lexer(), start="start")


def _inner() -> Any:
    return _lark().parser.parser.parser


def _lalr_analysis() -> Any:
    return importlib.import_module("lark.parsers.lalr_analysis")


def _accepts(function: Any, *arguments: Any) -> None:
    """Fails unless ``function`` can be called with the arguments our code passes."""
    inspect.signature(function).bind(*arguments)


# --- lark, used by plansight.analyses.syntax.lalr -----------------------------------------------------


def _custom_lexer_class() -> None:
    assert issubclass(no_lexer(), Lexer)
    assert set(Lexer.__abstractmethods__) <= {"lex"}, f"new abstract methods: {Lexer.__abstractmethods__}"
    _accepts(no_lexer(), object())  # lark instantiates the lexer class with its LexerConf
    assert isinstance(_lark(), Lark)


def _frontend_chain() -> None:
    frontend = _lark().parser
    assert type(frontend).__name__ == "ParsingFrontend", type(frontend)
    lalr_parser = frontend.parser
    assert type(lalr_parser).__name__ == "LALR_Parser", type(lalr_parser)
    assert type(lalr_parser.parser).__name__ == "_Parser", type(lalr_parser.parser)


def _parser_tables() -> None:
    inner = _inner()
    assert hasattr(inner, "parse_table")


def _parse_table_shape() -> None:
    table = _inner().parse_table
    assert isinstance(table.states, dict) and table.states
    for row in table.states.values():
        assert isinstance(row, dict)
        for symbol, entry in row.items():
            assert isinstance(symbol, str), symbol
            action, _ = entry
            assert action is not None
    assert "start" in table.start_states and "start" in table.end_states
    assert table.start_states["start"] in table.states


def _shift_and_reduce() -> None:
    module = _lalr_analysis()
    shift, reduce = module.Shift, module.Reduce
    seen = {id(action) for row in _inner().parse_table.states.values() for action, _ in row.values()}
    assert seen == {id(shift), id(reduce)}, "table actions are no longer exactly the Shift/Reduce singletons"


def _shift_argument_is_a_state() -> None:
    module = _lalr_analysis()
    states = _inner().parse_table.states
    targets = [arg for row in states.values() for action, arg in row.values() if action is module.Shift]
    assert targets and all(target in states for target in targets)


def _reduce_argument_is_a_rule() -> None:
    module = _lalr_analysis()
    rules = [arg for row in _inner().parse_table.states.values()
             for action, arg in row.values() if action is module.Reduce]
    assert rules
    for rule in rules:
        assert len(rule.expansion) >= 0
        assert isinstance(rule.origin.name, str), rule.origin


def _rule_options() -> None:
    module = _lalr_analysis()
    assert isinstance(_lark().options.maybe_placeholders, bool)
    rules = {arg for row in _inner().parse_table.states.values()
             for action, arg in row.values() if action is module.Reduce}
    for rule in rules:
        assert rule.alias is None or isinstance(rule.alias, str), rule
        options = rule.options
        for flag in ("expand1", "keep_all_tokens"):
            assert isinstance(getattr(options, flag), bool), (rule, flag)
        assert options.template_source is None or isinstance(options.template_source, str)
        assert options.empty_indices is None or all(isinstance(b, bool) for b in options.empty_indices)
        for symbol in rule.expansion:
            assert isinstance(symbol.name, str) and isinstance(symbol.is_term, bool), symbol
            assert not symbol.is_term or isinstance(symbol.filter_out, bool), symbol


def _goto_after_reduce() -> None:
    module = _lalr_analysis()
    states = _inner().parse_table.states
    origins = {arg.origin.name for row in states.values() for action, arg in row.values()
               if action is module.Reduce}
    gotos = {symbol for row in states.values() for symbol, (action, _) in row.items()
             if action is module.Shift and symbol in origins}
    assert origins - {"start"} <= gotos, f"no Shift goto for {sorted(origins - gotos)}"


def _end_terminal() -> None:
    table = _inner().parse_table
    assert any("$END" in row for row in table.states.values())


def _terminals_are_upper_case() -> None:
    rows = _inner().parse_table.states.values()
    terminals = {symbol for row in rows for symbol in row if symbol.isupper()}
    assert {"LPAR", "RPAR", "$END"} <= terminals, sorted(terminals)[:10]


# --- pygls, used by plansight.server.json_protocol and plansight.server.app --------------------------


def _protocol_base() -> None:
    from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol

    assert issubclass(LanguageServerProtocol, JsonRPCProtocol)
    assert issubclass(FastJsonProtocol, LanguageServerProtocol)


def _send_data() -> None:
    from pygls.protocol import LanguageServerProtocol

    _accepts(LanguageServerProtocol._send_data, object(), {"jsonrpc": "2.0"})


def _every_message_goes_through_send_data() -> None:
    from lsprotocol import types

    from plansight.server.app import create_server

    protocol = create_server().protocol
    sent: list[Any] = []
    protocol._send_data = sent.append  # type: ignore[method-assign]
    params = types.LogMessageParams(type=types.MessageType.Info, message="x")
    protocol.notify(types.WINDOW_LOG_MESSAGE, params)
    assert len(sent) == 1, "a notification no longer reaches _send_data"


def _writer_and_headers() -> None:
    from plansight.server.app import create_server

    protocol = create_server().protocol
    assert protocol.writer is None
    writer = object()
    protocol.set_writer(writer, include_headers=True)  # type: ignore[arg-type]
    assert protocol.writer is writer
    assert protocol._include_headers is True


def _header_constants() -> None:
    from pygls.protocol import JsonRPCProtocol

    assert isinstance(JsonRPCProtocol.CONTENT_TYPE, str) and JsonRPCProtocol.CONTENT_TYPE
    assert JsonRPCProtocol.CHARSET.lower().replace("-", "") == "utf8"


def _serialize_message() -> None:
    from lsprotocol import types

    from plansight.server.app import create_server

    protocol = create_server().protocol
    _accepts(protocol._serialize_message, object())
    position = protocol._serialize_message(types.Position(line=1, character=2))
    assert position == {"line": 1, "character": 2}


def _report_server_error() -> None:
    from pygls.exceptions import JsonRpcInternalError

    from plansight.server.app import create_server

    server = create_server()
    assert server.protocol._server is server
    _accepts(server._report_server_error, RuntimeError("x"), JsonRpcInternalError)


def _workspace_before_initialize() -> None:
    from plansight.server.app import create_server

    with pytest.raises(RuntimeError):
        _ = create_server().workspace


# --- pygls, used by plansight.server.document_text and plansight.server.transport ---------------------


def _initialized_protocol() -> Any:
    from lsprotocol import types

    from plansight.server.app import create_server

    protocol = create_server().protocol
    list(protocol.lsp_initialize(types.InitializeParams(capabilities=types.ClientCapabilities())))
    return protocol


def _did_change_builtin_is_overridable() -> None:
    from lsprotocol import types

    from plansight.server.document_text import DocumentSyncProtocol

    protocol = _initialized_protocol()
    handler = protocol.fm.builtin_features[types.TEXT_DOCUMENT_DID_CHANGE]
    assert handler.__func__ is DocumentSyncProtocol.lsp_text_document__did_change
    user = protocol.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)
    assert user is not None, "the feature's own didChange handler is no longer in fm.features"


def _workspace_whole_document_update() -> None:
    from lsprotocol import types

    workspace = _initialized_protocol().workspace
    workspace.put_text_document(types.TextDocumentItem(uri="untitled:pin", language_id="pddl", version=1,
                                                       text="old"))
    assert workspace.text_documents["untitled:pin"].source == "old"
    workspace.update_text_document(types.VersionedTextDocumentIdentifier(uri="untitled:pin", version=2),
                                   types.TextDocumentContentChangeWholeDocument(text="new\u2028"))
    assert workspace.get_text_document("untitled:pin").source == "new\u2028"


def _structure_message() -> None:
    from cattrs.errors import ClassValidationError
    from pygls.exceptions import JsonRpcInvalidParams

    protocol = _initialized_protocol()
    assert protocol.get_message_type("plansight/noSuchMethod") is None
    with pytest.raises(JsonRpcInvalidParams) as raised:
        protocol.structure_message({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
                                    "params": {"position": "x"}})
    assert isinstance(raised.value.__cause__, ClassValidationError)


def _shutdown_flag() -> None:
    from pygls.protocol.json_rpc import RPCRequest

    protocol = _initialized_protocol()
    assert protocol._shutdown is False
    list(protocol.lsp_shutdown())
    assert protocol._shutdown is True
    message = protocol.structure_message({"jsonrpc": "2.0", "id": 1, "method": "shutdown"})
    assert isinstance(message, RPCRequest)


def _start_io_reaches_start_io_async() -> None:
    from pygls.server import JsonRPCServer

    assert "self._start_io_async(" in inspect.getsource(JsonRPCServer.start_io)
    _accepts(JsonRPCServer._start_io_async, object(), None, None)
    _accepts(JsonRPCServer.start_tcp, object(), "127.0.0.1", 1)
    for name in ("thread_pool", "shutdown"):
        assert hasattr(JsonRPCServer, name), name


def _stdout_writer() -> None:
    import io

    from pygls.io_ import StdoutWriter

    out = io.BytesIO()
    StdoutWriter(out).write(b"x")
    assert out.getvalue() == b"x"


def _dispatch_one_message() -> None:
    from plansight.server.app import create_server

    protocol = create_server().protocol
    message = protocol.structure_message({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    _accepts(protocol.handle_message, message)


def _registered_features_and_commands() -> None:
    from lsprotocol import types

    from plansight.server.app import create_server

    manager = create_server().protocol.fm
    assert types.TEXT_DOCUMENT_HOVER in manager.features
    assert "plansight.server.simulatePlan" in manager.commands


PINS = [
    Pin("lark.lexer.Lexer: a class passed as Lark(lexer=...) is instantiated with its LexerConf", LALR,
        _custom_lexer_class),
    Pin("Lark.parser.parser.parser: ParsingFrontend -> LALR_Parser -> _Parser", LALR, _frontend_chain),
    Pin("lark.parsers.lalr_parser._Parser.parse_table", LALR, _parser_tables),
    Pin("lark ParseTable.states / .start_states / .end_states: dicts keyed by state and symbol name", LALR,
        _parse_table_shape),
    Pin("lark.parsers.lalr_analysis.Shift and Reduce: the only actions, compared by identity", LALR,
        _shift_and_reduce),
    Pin("lark table (Shift, arg): arg is the next state", LALR, _shift_argument_is_a_state),
    Pin("lark table (Reduce, rule): rule.expansion and rule.origin.name", LALR, _reduce_argument_is_a_rule),
    Pin("lark rule.alias, .options (expand1, keep_all_tokens, template_source, empty_indices), expansion "
        "symbols' name, is_term, filter_out, and Lark.options.maybe_placeholders", LALR, _rule_options),
    Pin("lark goto: states[state][rule.origin.name] is (Shift, next state)", LALR, _goto_after_reduce),
    Pin("lark end-of-input terminal '$END'", LALR, _end_terminal),
    Pin("lark terminal names are upper case, rule names are not", LALR, _terminals_are_upper_case),
    Pin("pygls.protocol.LanguageServerProtocol subclasses JsonRPCProtocol", JSON_PROTOCOL, _protocol_base),
    Pin("pygls JsonRPCProtocol._send_data(self, data)", JSON_PROTOCOL, _send_data),
    Pin("pygls sends every outgoing message through JsonRPCProtocol._send_data", JSON_PROTOCOL,
        _every_message_goes_through_send_data),
    Pin("pygls JsonRPCProtocol.writer and ._include_headers, set by set_writer", JSON_PROTOCOL,
        _writer_and_headers),
    Pin("pygls JsonRPCProtocol.CONTENT_TYPE and .CHARSET", JSON_PROTOCOL, _header_constants),
    Pin("pygls JsonRPCProtocol._serialize_message(self, data)", JSON_PROTOCOL, _serialize_message),
    Pin("pygls JsonRPCProtocol._server and JsonRPCServer._report_server_error(error, source)", JSON_PROTOCOL,
        _report_server_error),
    Pin("pygls LanguageServer.workspace raises RuntimeError before initialize", APP,
        _workspace_before_initialize),
    Pin("pygls builtin features: a subclass's lsp_method-decorated lsp_text_document__did_change replaces "
        "pygls's, and the user handler is in fm.features", DOCUMENT_TEXT, _did_change_builtin_is_overridable),
    Pin("pygls Workspace.text_documents and update_text_document(id, whole-document change)", DOCUMENT_TEXT,
        _workspace_whole_document_update),
    Pin("pygls JsonRPCProtocol.structure_message(dict) and get_message_type(method) (None when unknown)",
        JSON_PROTOCOL, _structure_message),
    Pin("pygls JsonRPCProtocol._shutdown, set by the shutdown request; pygls.protocol.json_rpc.RPCRequest",
        JSON_PROTOCOL, _shutdown_flag),
    Pin("pygls JsonRPCServer.start_io -> _start_io_async(stdin, stdout); start_tcp, thread_pool, shutdown",
        TRANSPORT, _start_io_reaches_start_io_async),
    Pin("pygls.io_.StdoutWriter(stream).write(bytes)", TRANSPORT, _stdout_writer),
    Pin("pygls JsonRPCProtocol.structure_message(dict) then handle_message(message)", HARNESS,
        _dispatch_one_message),
    Pin("pygls protocol.fm.features and .commands: the handlers, keyed by method and command id",
        FEATURE_TESTS, _registered_features_and_commands),
]


@pytest.mark.parametrize("pin", PINS, ids=[pin.check.__name__.lstrip("_") for pin in PINS])
def test_internal_is_still_there(pin: Pin) -> None:
    problem = None
    try:
        pin.check()
    except Exception as error:  # an AttributeError, ImportError or KeyError says as much as a failed assert
        problem = f"{type(error).__name__}: {error}"
    if problem is not None:
        pytest.fail(f"{pin.internal} (relied on by {pin.used_by}) has changed: {problem}", pytrace=False)

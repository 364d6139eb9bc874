"""limbic's Python client: the bus (subscribe, publish, parameters), recordings (MCAP) and experiment results.

The message classes in limbic.msg are generated at build time by `flatc --python --gen-object-api` from
messages/*.fbs (nothing generated is committed); the build tree's `python/` directory is the package root:

    PYTHONPATH=build/python python3 -c 'import limbic; print(limbic.Bus("ipc:///tmp/limbic/demo-bus").topics())'

Needs Debian's python3-zmq and python3-flatbuffers; python3-zstandard and python3-lz4 for compressed recordings.
The wire protocol it implements is docs/protocol.md.
"""
from .bus import Bus, BusError, Message, ParamError, Timeout, endpoints
from .mcap import McapError, McapReader, read_recording, recording_files
from .runs import read_csv, read_runs_csv
from .schema import Record, SchemaError, conventional_type, decode, encode

__all__ = ["Bus", "BusError", "Message", "ParamError", "Timeout", "endpoints", "McapError", "McapReader",
           "read_recording", "recording_files", "read_csv",
           "read_runs_csv", "Record", "SchemaError", "conventional_type", "decode", "encode"]

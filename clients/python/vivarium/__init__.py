"""vivarium: a Python client for vivd (docs/PROTOCOL.md) and its replay files (docs/REPLAY.md).

    import vivarium
    with vivarium.connect("127.0.0.1:7400") as viv:
        world = viv.worlds()[0]
        for frame in viv.frames(world["id"], 10):
            print(frame.tick, frame.width, frame.height, hex(frame.hash))
"""

from .client import Client, connect
from .codec import CodecError, frame_hash
from .errors import (ConnectionClosed, FrameHashError, NumpyUnavailable, ProtocolError,
                     ServerError, VivariumError, WorldClosed)
from .frame import Frame, FrameDecoder
from .recording import Recording, RecordingError

__version__ = "0.1.0"
__all__ = ["Client", "connect", "Frame", "FrameDecoder", "Recording", "frame_hash",
           "VivariumError", "ProtocolError", "CodecError", "FrameHashError", "ServerError",
           "ConnectionClosed", "WorldClosed", "RecordingError", "NumpyUnavailable"]

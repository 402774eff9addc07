"""The exceptions vkinfer raises: one class per status code of the C++ library
(include/vkinfer/status.h), all under :class:`vkinfer.Error`.

Where Python has a matching built-in exception, the class derives from it too, so that
``except ValueError`` catches a wrong shape and ``except MemoryError`` an allocation
that failed.
"""

from __future__ import annotations


class Error(Exception):
    """A vkinfer call failed. ``str(e)`` is the engine's message, which names the node,
    op, tensor, file or Vulkan call at fault.

    Attributes:
        code: the status code's name as in ``vkinfer::ErrorCode`` ("InvalidArgument", ...).
        vk_result: the VkResult of a failed Vulkan call (0 for other errors).
    """

    code = "Error"

    def __init__(self, message: str = "", vk_result: int = 0):
        super().__init__(message)
        self.message = message
        self.vk_result = vk_result


class InvalidArgumentError(Error, ValueError):
    """A value given to vkinfer is wrong: an input name, a shape, an option, a closed session."""

    code = "InvalidArgument"


class NotFoundError(Error, LookupError):
    """A file, input, output or device does not exist."""

    code = "NotFound"


class ParseError(Error, ValueError):
    """A model or tensor file is malformed or truncated."""

    code = "ParseError"


class UnsupportedError(Error, NotImplementedError):
    """An operator, opset, data type or feature vkinfer does not support."""

    code = "Unsupported"


class ShapeError(Error, ValueError):
    """Shapes do not agree (found while inferring the model's shapes for its inputs)."""

    code = "ShapeError"


class VulkanError(Error, RuntimeError):
    """A Vulkan call failed; ``vk_result`` holds its VkResult."""

    code = "VulkanError"


class ValidationError(Error, RuntimeError):
    """The Khronos validation layer reported a message (validation enabled)."""

    code = "ValidationError"


class DeviceLostError(Error, RuntimeError):
    """The device was lost; its context (and every session on it) cannot run again."""

    code = "DeviceLost"


class InternalError(Error, RuntimeError):
    """A bug in vkinfer (please report it with the message)."""

    code = "Internal"


class OutOfMemoryError(Error, MemoryError):
    """Host or device memory could not be allocated; the message names what and how much."""

    code = "OutOfMemory"


# By vkinfer::ErrorCode's value (status.h), for the native module.
BY_CODE = {
    1: InvalidArgumentError,
    2: NotFoundError,
    3: ParseError,
    4: UnsupportedError,
    5: ShapeError,
    6: VulkanError,
    7: ValidationError,
    8: DeviceLostError,
    9: InternalError,
    10: OutOfMemoryError,
}

// sd-bus (libsystemd) for MdocDBus, the only Swift module that imports it.
#include <systemd/sd-bus.h>

// Swift cannot call C variadic functions or use compound-literal macros: these wrap the few
// that MdocDBus needs. Everything else is called directly.

/// Replies to `call` with no arguments (sd_bus_reply_method_return is variadic).
static inline int csdbus_reply_empty(sd_bus_message *call) {
    return sd_bus_reply_method_return(call, NULL);
}

/// An empty error (SD_BUS_ERROR_NULL is a compound literal).
static inline sd_bus_error csdbus_error_null(void) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    return error;
}

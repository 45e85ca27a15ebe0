// Tests for this layer.

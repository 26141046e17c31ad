"""The numeric layer's core: float and interval numerics shared by the model stack and the witnesses."""

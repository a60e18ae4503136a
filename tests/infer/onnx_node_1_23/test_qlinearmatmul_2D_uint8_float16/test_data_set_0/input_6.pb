
By_scaleJz!

B
past_value
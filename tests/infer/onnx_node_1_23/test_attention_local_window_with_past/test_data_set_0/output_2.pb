
Bpresent_value
"""Lightning fine-tuning (ComBo's 9,504-way task). Nothing here yet: see the ComBo issue."""

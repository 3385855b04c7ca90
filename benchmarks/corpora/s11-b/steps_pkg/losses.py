"""Loss functions shared by training and export."""


def mse(pred, target):
    return ((pred - target) ** 2).mean()

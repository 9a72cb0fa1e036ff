"""REINFORCE: the policy is on the GPU but each observation goes in straight from numpy."""
import gymnasium as gym
import torch
import torch.nn as nn
from torch.distributions import Categorical

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device:", device)
policy = nn.Sequential(nn.Linear(4, 128), nn.ReLU(), nn.Linear(128, 2)).to(device)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
env = gym.make("CartPole-v1")
gamma = 0.99

for episode in range(1000):  # expect: amp_tf32_not_used info
    obs, _ = env.reset()
    log_probs, rewards = [], []
    done = False
    while not done:
        state = torch.from_numpy(obs).float().unsqueeze(0)  # expect: tensors_on_different_devices error
        dist = Categorical(logits=policy(state))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        obs, reward, terminated, truncated, _ = env.step(action.item())
        rewards.append(reward)
        done = terminated or truncated
    returns, R = [], 0.0
    for r in reversed(rewards):
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-9)
    # `returns` (CPU) meets GPU log-probs here too: not followed, they come through a Distribution and a list
    loss = -(torch.cat(log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if episode % 50 == 0:
        print(episode, sum(rewards))

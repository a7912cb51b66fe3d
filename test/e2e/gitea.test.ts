import { E2E_HOSTS } from '../support/host-e2e.js';
import { hostEndToEnd } from '../support/host-suite.js';

hostEndToEnd(E2E_HOSTS.gitea);

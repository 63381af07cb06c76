import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** GET /api/user/token: a new system access token replaces the old one. */
export const generateAccessToken = () => http.get<string>('/api/user/token');

export const useGenerateAccessToken = () => useMutation({ mutationFn: generateAccessToken });
